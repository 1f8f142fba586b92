import { createHash, randomBytes } from 'node:crypto';
import type { SessionsRepository } from '../storage/sessions-repository.js';

/** The dashboard's session cookie. */
export const SESSION_COOKIE = 'mp_session';

export interface SessionOptions {
  /** A session unused this long ends. @default 7 days */
  readonly idleMs?: number;
  /** A session ends this long after sign-in, used or not. @default 30 days */
  readonly absoluteMs?: number;
  /** `last_seen_at` is written at most this often per session, not on every request. @default 60000 */
  readonly touchEveryMs?: number;
}

export interface Session {
  readonly userId: string;
  readonly csrfToken: string;
  readonly idHash: string;
  readonly createdAt: number;
}

export interface SessionStore {
  /** Starts a session; `token` goes in the cookie and is never stored. */
  create(userId: string): Promise<{ token: string; session: Session }>;
  /** The live session a cookie value names, or undefined (unknown, idle too long, too old). */
  resolve(token: string | undefined): Promise<Session | undefined>;
  destroy(session: Session): Promise<void>;
  /** How long the cookie should live, in seconds. */
  readonly cookieMaxAgeSeconds: number;
}

const DAY = 86_400_000;

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Sessions in the database (so every instance knows them), keyed by the SHA-256 of a 256-bit random value. */
export function createSessionStore(repository: SessionsRepository, now: () => number, options: SessionOptions = {}): SessionStore {
  const idleMs = options.idleMs ?? 7 * DAY;
  const absoluteMs = options.absoluteMs ?? 30 * DAY;
  const touchEveryMs = options.touchEveryMs ?? 60_000;
  let lastSweep = 0;
  return {
    cookieMaxAgeSeconds: Math.floor(absoluteMs / 1000),
    async create(userId) {
      const token = randomBytes(32).toString('base64url');
      const time = now();
      const session: Session = { userId, csrfToken: randomBytes(32).toString('base64url'), idHash: hashSessionToken(token), createdAt: time };
      await repository.create({ ...session, lastSeenAt: time });
      // Expired sessions are deleted now and then, on sign-in, rather than by a timer.
      if (time - lastSweep > DAY / 24) {
        lastSweep = time;
        await repository.removeExpired(time - idleMs, time - absoluteMs);
      }
      return { token, session };
    },
    async resolve(token) {
      if (token === undefined || token.length === 0 || token.length > 200) return undefined;
      const record = await repository.find(hashSessionToken(token));
      if (record === undefined) return undefined;
      const time = now();
      if (time - record.lastSeenAt > idleMs || time - record.createdAt > absoluteMs) {
        await repository.remove(record.idHash);
        return undefined;
      }
      if (time - record.lastSeenAt > touchEveryMs) await repository.touch(record.idHash, time);
      return { userId: record.userId, csrfToken: record.csrfToken, idHash: record.idHash, createdAt: record.createdAt };
    },
    async destroy(session) {
      await repository.remove(session.idHash);
    },
  };
}
