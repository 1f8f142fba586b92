import { errors } from '../lib/errors.js';

/** How much one account may create through the dashboard (docs/configuration.md, MODELPORT_MAX_*). */
export interface AccountQuotas {
  /** Organisations one account may create (MODELPORT_MAX_ORGANIZATIONS_PER_ACCOUNT). @default 10 */
  readonly organizationsPerAccount: number;
  /** Routers in one workspace (MODELPORT_MAX_ROUTERS_PER_WORKSPACE). @default 100 */
  readonly routersPerWorkspace: number;
  /** Keys that still work (neither revoked nor expired) in one workspace (MODELPORT_MAX_KEYS_PER_WORKSPACE). @default 100 */
  readonly keysPerWorkspace: number;
}

export const DEFAULT_ACCOUNT_QUOTAS: AccountQuotas = { organizationsPerAccount: 10, routersPerWorkspace: 100, keysPerWorkspace: 100 };

export interface QuotaCheck<T> {
  /** Whose count it is (`keys:<workspace id>`…): creations of one subject run one at a time. */
  readonly subject: string;
  /** What is counted, in the refusal: "routers", "API keys", "organisations". */
  readonly noun: string;
  /** Who holds them, in the refusal: "This workspace", "Your account". */
  readonly holder: string;
  readonly limit: number;
  count(): Promise<number>;
  create(): Promise<T>;
}

/**
 * Runs `create` only while `count` is under the limit, else 409 `quota_exceeded`. Creations of one subject run
 * one at a time in this process, so parallel requests cannot all pass a count made before any of them was
 * stored; across N instances a burst can pass the limit by at most N − 1.
 */
export function createQuotaGate() {
  const tails = new Map<string, Promise<void>>();
  return async function withinQuota<T>(check: QuotaCheck<T>): Promise<T> {
    const previous = tails.get(check.subject) ?? Promise.resolve();
    let release = (): void => undefined;
    const done = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => done);
    tails.set(check.subject, tail);
    await previous;
    try {
      if ((await check.count()) >= check.limit) {
        throw errors.quotaExceeded(
          `${check.holder} has ${check.limit} ${check.noun}, the most this server allows: remove one first, or ask the operator for a higher limit.`,
          check.limit,
        );
      }
      return await check.create();
    } finally {
      release();
      if (tails.get(check.subject) === tail) tails.delete(check.subject);
    }
  };
}

export type QuotaGate = ReturnType<typeof createQuotaGate>;
