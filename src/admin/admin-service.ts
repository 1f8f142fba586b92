import { generateApiKey } from '../auth/api-key-format.js';
import { hashPassword } from '../auth/passwords.js';
import type { ModelCatalog, ModelKind } from '../catalog/catalog.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import type { Repositories } from '../storage/repositories.js';
import type { RouterRecord } from '../storage/routers-repository.js';
import type { UsageRecordRow, UserRow } from '../storage/schema.js';
import type { AgentLimits } from '../agents/agent-definition.js';
import { AdminInputError } from './admin-errors.js';
import { createAgentAdmin } from './agent-admin.js';
import { createBudgetAdmin } from './budget-admin.js';
import { createCustomModelAdmin } from './custom-model-admin.js';
import { createProviderAdmin, type ProviderAdminOptions } from './provider-admin.js';
import { createRouterAdmin } from './router-admin.js';

export { AdminInputError } from './admin-errors.js';
export type { NewRouterRequest, RouterUpdateRequest } from './router-admin.js';

export interface NewKeyRequest {
  readonly ownerEmail: string;
  readonly name: string;
  readonly routerIds?: readonly string[] | undefined;
  readonly rpmLimit?: number | undefined;
  readonly tpmLimit?: number | undefined;
  readonly maxConcurrency?: number | undefined;
  readonly expiresInMs?: number | undefined;
}

/** Filters for reading usage records; every field narrows the result. */
export interface UsageListRequest {
  readonly ownerEmail?: string | undefined;
  readonly keyId?: string | undefined;
  readonly routerId?: string | undefined;
  /** Epoch milliseconds; records at or after it. */
  readonly since?: number | undefined;
  /** @default 100 */
  readonly limit?: number | undefined;
}

/** What `usage export` reads: records created in [from, to), epoch ms, narrowed like a listing. */
export interface UsageExportRequest extends Omit<UsageListRequest, 'since' | 'limit'> {
  readonly from: number;
  readonly to: number;
}

/** A router with its owner's email, for listings across owners. */
export interface RouterWithOwner {
  readonly router: RouterRecord;
  readonly ownerEmail: string;
  /** Whether it serves chat or embeddings (its models' kind). */
  readonly kind: ModelKind;
}

/** The most usage records one listing returns. */
export const MAX_USAGE_LIMIT = 10_000;
const DEFAULT_USAGE_LIMIT = 100;

/**
 * Owner-side operations shared by the CLI, the first-start bootstrap and the
 * dashboard: every rule about what a valid user, router or key is lives here,
 * and (in router-admin.ts, provider-admin.ts and custom-model-admin.ts) every
 * rule about routers' settings and owners' own provider credentials and models. Without `providers` options (the secret,
 * the SSRF policy) credentials cannot be stored or tested.
 */
export function createAdminService(repositories: Repositories, catalog: ModelCatalog, now: () => number = Date.now, providers?: ProviderAdminOptions, agentLimits?: AgentLimits) {
  const ownerByEmail = async (email: string): Promise<UserRow> => {
    const user = await repositories.users.findByEmail(email);
    if (user === undefined) throw new AdminInputError(`No user with email ${email}.`);
    return user;
  };

  /** The owner a usage read names, if any; an owner or key that does not exist is a mistake, not an empty answer. */
  const usageOwner = async (request: Pick<UsageListRequest, 'ownerEmail' | 'keyId'>): Promise<UserRow | undefined> => {
    const owner = request.ownerEmail === undefined ? undefined : await ownerByEmail(request.ownerEmail);
    if (request.keyId !== undefined) {
      // Owners are few; looking through their keys keeps the repository interface as it is.
      const owners = owner !== undefined ? [owner] : await repositories.users.list();
      const keys = (await Promise.all(owners.map((candidate) => repositories.apiKeys.listByOwner(candidate.id)))).flat();
      if (!keys.some((key) => key.id === request.keyId)) {
        throw new AdminInputError(owner === undefined ? `No key ${request.keyId}.` : `No key ${request.keyId} belongs to ${request.ownerEmail}.`);
      }
    }
    return owner;
  };

  const routerAdmin = createRouterAdmin(repositories, catalog, ownerByEmail, now);
  return {
    ...createProviderAdmin(repositories, catalog, ownerByEmail, providers),
    ...createCustomModelAdmin(repositories, catalog, ownerByEmail),
    ...routerAdmin,
    ...createAgentAdmin(repositories, catalog, ownerByEmail, agentLimits),
    ...createBudgetAdmin(repositories, ownerByEmail),

    async createUser(email: string, password: string): Promise<UserRow> {
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new AdminInputError(`"${email}" is not an email address.`);
      if (password.length < 8) throw new AdminInputError('The password must have at least 8 characters.');
      if ((await repositories.users.findByEmail(email)) !== undefined) throw new AdminInputError(`A user with email ${email} already exists.`);
      return repositories.users.create(email, await hashPassword(password));
    },

    async listRouters(ownerEmail: string | undefined): Promise<RouterRecord[]> {
      if (ownerEmail !== undefined) return repositories.routers.listByOwner((await ownerByEmail(ownerEmail)).id);
      const users = await repositories.users.list();
      return (await Promise.all(users.map((user) => repositories.routers.listByOwner(user.id)))).flat();
    },

    /** Creates a key; the returned value is the only time the whole key exists outside the client. */
    async createKey(input: NewKeyRequest): Promise<{ key: ApiKeyRecord; value: string }> {
      const owner = await ownerByEmail(input.ownerEmail);
      if (input.name.trim() === '') throw new AdminInputError('A key needs a name.');
      if (input.rpmLimit !== undefined && (!Number.isInteger(input.rpmLimit) || input.rpmLimit < 1)) {
        throw new AdminInputError('--rpm must be a positive whole number.');
      }
      for (const [value, flag] of [[input.tpmLimit, '--tpm'], [input.maxConcurrency, '--max-concurrency']] as const) {
        if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new AdminInputError(`${flag} must be a positive whole number.`);
      }
      if (input.routerIds !== undefined) {
        for (const id of input.routerIds) {
          const router = await repositories.routers.findById(id);
          if (router === undefined || router.ownerId !== owner.id) throw new AdminInputError(`No router ${id} belongs to ${input.ownerEmail}.`);
        }
      }
      const generated = generateApiKey();
      const createdAt = now();
      const key = await repositories.apiKeys.create({
        ownerId: owner.id,
        name: input.name.trim(),
        keyHash: generated.hash,
        displayPrefix: generated.displayPrefix,
        routerIds: input.routerIds,
        rpmLimit: input.rpmLimit,
        tpmLimit: input.tpmLimit,
        maxConcurrency: input.maxConcurrency,
        createdAt,
        expiresAt: input.expiresInMs === undefined ? undefined : createdAt + input.expiresInMs,
      });
      return { key, value: generated.value };
    },

    async listKeys(ownerEmail: string): Promise<ApiKeyRecord[]> {
      return repositories.apiKeys.listByOwner((await ownerByEmail(ownerEmail)).id);
    },

    async revokeKey(ownerEmail: string, keyId: string): Promise<void> {
      const owner = await ownerByEmail(ownerEmail);
      if (!(await repositories.apiKeys.revoke(owner.id, keyId))) throw new AdminInputError(`No active key ${keyId} belongs to ${ownerEmail}.`);
    },

    /** Like listRouters, with each router's owner email (one owner, or every owner). */
    async listRoutersWithOwners(ownerEmail: string | undefined): Promise<RouterWithOwner[]> {
      const owners = ownerEmail !== undefined ? [await ownerByEmail(ownerEmail)] : await repositories.users.list();
      const lists = await Promise.all(
        owners.map(async (owner) => {
          const [routers, kindOf] = await Promise.all([repositories.routers.listByOwner(owner.id), routerAdmin.routerKinds(owner.id)]);
          return routers.map((router) => ({ router, ownerEmail: owner.email, kind: kindOf(router) }));
        }),
      );
      return lists.flat();
    },

    /** Usage records, newest first; an owner or key that does not exist is a mistake, not an empty list. */
    async listUsage(request: UsageListRequest): Promise<UsageRecordRow[]> {
      const limit = request.limit ?? DEFAULT_USAGE_LIMIT;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_USAGE_LIMIT) {
        throw new AdminInputError(`--limit must be a whole number from 1 to ${MAX_USAGE_LIMIT}.`);
      }
      const owner = await usageOwner(request);
      return repositories.usage.list({
        limit,
        ...(owner === undefined ? {} : { ownerId: owner.id }),
        ...(request.keyId === undefined ? {} : { keyId: request.keyId }),
        ...(request.routerId === undefined ? {} : { routerId: request.routerId }),
        ...(request.since === undefined ? {} : { since: request.since }),
      });
    },

    /**
     * The usage records of [from, to), oldest first, a page at a time (src/storage/usage-export-repository.ts). The
     * owner and key are checked before the first read, so a mistake is an error rather than an empty file.
     */
    async exportUsage(request: UsageExportRequest): Promise<AsyncGenerator<UsageRecordRow[], void, undefined>> {
      if (!(request.from < request.to)) throw new AdminInputError('--since must be before --until.');
      const owner = await usageOwner(request);
      return repositories.usageExport.pages({ ownerId: owner?.id, from: request.from, to: request.to, routerId: request.routerId, keyId: request.keyId });
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;

/** "90d", "12h", "30m", "45s" → milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)\s*([dhms])$/.exec(text.trim());
  if (!match) throw new AdminInputError(`"${text}" is not a duration; write e.g. 90d, 12h or 30m.`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }[match[2] as 'd' | 'h' | 'm' | 's'];
  return Number(match[1]) * unit;
}

/** A whole number written in decimal digits ("600"), for flags such as --rpm and --limit. */
export function parseWholeNumber(text: string, flag: string): number {
  if (!/^\d{1,15}$/.test(text.trim())) throw new AdminInputError(`${flag} must be a whole number, not "${text}".`);
  return Number(text.trim());
}

/**
 * A point in time for filters: an ISO 8601 date or date-time ("2026-01-31",
 * "2026-01-31T12:00:00Z"), or a duration back from `now` ("1h", "7d").
 */
export function parseSince(text: string, now: number): number {
  if (/^\d+\s*[dhms]$/.test(text.trim())) return now - parseDuration(text);
  const time = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN;
  if (Number.isNaN(time)) throw new AdminInputError(`"${text}" is neither an ISO 8601 time (2026-01-31T12:00:00Z) nor a duration (1h, 7d).`);
  return time;
}
