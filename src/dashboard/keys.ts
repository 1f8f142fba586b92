import { AdminInputError, type AdminService } from '../admin/admin-service.js';
import { keyState } from '../auth/key-state.js';
import { errors } from '../lib/errors.js';
import type { ApiKeyRecord, ApiKeysRepository } from '../storage/api-keys-repository.js';
import type { KeyRotationsRepository } from '../storage/key-rotations-repository.js';
import type { RoutersRepository } from '../storage/routers-repository.js';
import type { BudgetView, CreatedKeyView, KeyStatus, KeyView, RotatedKeyView } from './dashboard-api-types.js';
import { budgetInput, budgetView, type BudgetBody } from './budget-input.js';
import { DEFAULT_ACCOUNT_QUOTAS, createQuotaGate, type QuotaGate } from './quotas.js';
import type { Workspace } from './workspaces.js';

const DAY = 86_400_000;
/** Spec 5.6: rotate keys about every 90 days. */
export const OLD_KEY_AGE_MS = 90 * DAY;
export const UNUSED_KEY_MS = 30 * DAY;
export const MAX_GRACE_MINUTES = 7 * 24 * 60;

export interface NewKeyInput {
  readonly name: string;
  readonly routerIds?: readonly string[] | null | undefined;
  readonly rpmLimit?: number | null | undefined;
  readonly tpmLimit?: number | null | undefined;
  readonly maxConcurrency?: number | null | undefined;
  readonly expiresAt?: number | null | undefined;
  /** A spend cap, checked and set as `key create --budget-usd` does. */
  readonly budget?: BudgetBody | null | undefined;
}

/** What the dashboard shows of a key, its status and its warnings at `at`. */
export function viewKey(key: ApiKeyRecord, replacedBy: string | undefined, at: number, budget: BudgetView | null = null): KeyView {
  const state = keyState(key, at);
  const status: KeyStatus = state === 'active' && replacedBy !== undefined ? 'rotating' : state;
  const flags: ('old' | 'unused')[] = [];
  if (status === 'active' || status === 'rotating') {
    if (at - key.createdAt > OLD_KEY_AGE_MS) flags.push('old');
    if (at - (key.lastUsedAt ?? key.createdAt) > UNUSED_KEY_MS) flags.push('unused');
  }
  return {
    id: key.id,
    name: key.name,
    prefix: key.displayPrefix,
    routerIds: key.routerIds ?? null,
    rpmLimit: key.rpmLimit ?? null,
    tpmLimit: key.tpmLimit ?? null,
    maxConcurrency: key.maxConcurrency ?? null,
    budget,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt ?? null,
    expiresAt: key.expiresAt ?? null,
    revokedAt: key.revokedAt ?? null,
    status,
    flags,
    replacedBy: replacedBy ?? null,
  };
}

/**
 * API keys of a workspace: creation goes through the admin service, as the CLI's does. `quota` bounds the keys
 * that still work in one workspace; a rotation replaces a key, so it is not counted against it.
 */
export function createKeys(
  admin: AdminService,
  apiKeys: ApiKeysRepository,
  routers: RoutersRepository,
  rotations: KeyRotationsRepository,
  now: () => number,
  quota: { readonly keysPerWorkspace: number; readonly gate: QuotaGate } = { keysPerWorkspace: DEFAULT_ACCOUNT_QUOTAS.keysPerWorkspace, gate: createQuotaGate() },
) {
  const budgetOf = async (keyId: string): Promise<BudgetView | null> => budgetView(await admin.findBudget('key', keyId));
  const find = async (workspace: Workspace, keyId: string): Promise<ApiKeyRecord> => {
    const key = (await apiKeys.listByOwner(workspace.id)).find((candidate) => candidate.id === keyId);
    if (key === undefined) throw errors.dashboardNotFound('key_not_found', 'No such API key in this workspace.');
    return key;
  };

  const createUncounted = async (workspace: Workspace, input: NewKeyInput): Promise<CreatedKeyView> => {
    const name = input.name.trim();
    if (name === '' || name.length > 100) throw errors.invalidRequest('A key needs a name of 1 to 100 characters.', 'name');
    const at = now();
    if (input.expiresAt !== undefined && input.expiresAt !== null && input.expiresAt <= at) throw errors.invalidRequest('The expiry must be in the future.', 'expiresAt');
    if (input.routerIds !== undefined && input.routerIds !== null) {
      const own = new Set((await routers.listByOwner(workspace.id)).map((router) => router.id));
      const foreign = input.routerIds.find((id) => !own.has(id));
      if (foreign !== undefined) throw errors.invalidRequest(`No router ${foreign.slice(0, 64)} in this workspace.`, 'routerIds');
    }
    try {
      // Checked before the key exists, with the CLI's messages.
      const budget = budgetInput(input.budget);
      const { key, value } = await admin.createKey({
        ownerEmail: workspace.ownerEmail,
        name,
        routerIds: input.routerIds ?? undefined,
        rpmLimit: input.rpmLimit ?? undefined,
        tpmLimit: input.tpmLimit ?? undefined,
        maxConcurrency: input.maxConcurrency ?? undefined,
        expiresInMs: input.expiresAt === undefined || input.expiresAt === null ? undefined : input.expiresAt - at,
      });
      const set = budget?.amountUsd == null ? undefined : await admin.setBudget(workspace.ownerEmail, 'key', key.id, budget);
      return { ...viewKey(key, undefined, now(), budgetView(set)), key: value };
    } catch (error) {
      if (error instanceof AdminInputError) throw errors.invalidRequest(error.message, fieldOf(error.message));
      throw error;
    }
  };

  const create = (workspace: Workspace, input: NewKeyInput): Promise<CreatedKeyView> =>
    quota.gate({
      subject: `keys:${workspace.id}`,
      noun: 'API keys that work',
      holder: 'This workspace',
      limit: quota.keysPerWorkspace,
      count: async () => {
        const at = now();
        return (await apiKeys.listByOwner(workspace.id)).filter((key) => !['revoked', 'expired'].includes(keyState(key, at))).length;
      },
      create: () => createUncounted(workspace, input),
    });

  return {
    async list(workspace: Workspace): Promise<KeyView[]> {
      const [keys, replacements] = await Promise.all([apiKeys.listByOwner(workspace.id), rotations.replacements(workspace.id)]);
      const at = now();
      const budgets = await Promise.all(keys.map((key) => budgetOf(key.id)));
      return keys.map((key, index) => viewKey(key, replacements.get(key.id), at, budgets[index] ?? null)).reverse();
    },

    create,

    async revoke(workspace: Workspace, keyId: string): Promise<KeyView> {
      const key = await find(workspace, keyId);
      if (keyState(key, now()) === 'revoked') throw errors.dashboardConflict('key_revoked', 'This key is already revoked.');
      await apiKeys.revoke(workspace.id, keyId);
      const replacements = await rotations.replacements(workspace.id);
      return viewKey(await find(workspace, keyId), replacements.get(keyId), now(), await budgetOf(keyId));
    },

    /** A new key with the same settings; the old one ends after the grace period. */
    async rotate(workspace: Workspace, keyId: string, graceMinutes: number): Promise<RotatedKeyView> {
      const old = await find(workspace, keyId);
      const at = now();
      const state = keyState(old, at);
      if (state === 'revoked') throw errors.dashboardConflict('key_revoked', 'A revoked key cannot be rotated: generate a new key.');
      if (state === 'expired') throw errors.dashboardConflict('key_expired', 'An expired key cannot be rotated: generate a new key.');
      const replacements = await rotations.replacements(workspace.id);
      if (replacements.has(keyId)) throw errors.dashboardConflict('key_expired', 'This key was already rotated; rotate its replacement instead.');
      const lifetime = old.expiresAt === undefined ? undefined : old.expiresAt - old.createdAt;
      // Router scopes that name deleted routers are dropped; an empty scope would allow nothing, so it is kept as it was.
      const liveRouters = old.routerIds === undefined ? undefined : new Set((await routers.listByOwner(workspace.id)).map((router) => router.id));
      const routerIds = old.routerIds?.filter((id) => liveRouters?.has(id) === true);
      const created = await createUncounted(workspace, {
        name: old.name,
        routerIds: routerIds === undefined || routerIds.length === 0 ? old.routerIds : routerIds,
        rpmLimit: old.rpmLimit,
        tpmLimit: old.tpmLimit,
        maxConcurrency: old.maxConcurrency,
        budget: await budgetOf(old.id),
        expiresAt: lifetime === undefined ? undefined : at + lifetime,
      });
      const oldEnds = Math.min(at + graceMinutes * 60_000, old.expiresAt ?? Number.POSITIVE_INFINITY);
      await rotations.record(workspace.id, old.id, created.id, oldEnds);
      return { ...created, replaces: old.id };
    },
  };
}

/** The field a CLI flag's message is about ("--tpm must be …" → tpmLimit), so the dialog shows it there. */
function fieldOf(message: string): string | null {
  const flag = /^--([\w-]+)/.exec(message)?.[1];
  const fields: Record<string, string> = { rpm: 'rpmLimit', tpm: 'tpmLimit', 'max-concurrency': 'maxConcurrency', 'budget-period': 'budget.period' };
  if (flag !== undefined) return fields[flag] ?? null;
  return /^A budget /.test(message) ? 'budget.usd' : null;
}

export type Keys = ReturnType<typeof createKeys>;
