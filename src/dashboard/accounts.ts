import { DECOY_PASSWORD_HASH, hashPassword, verifyPassword } from '../auth/passwords.js';
import { errors } from '../lib/errors.js';
import { ORGANIZATION_EMAIL_DOMAIN } from '../storage/organizations-repository.js';
import type { UsersRepository } from '../storage/users-repository.js';
import type { LoginThrottle } from './login-throttle.js';

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;

export interface AccountUser {
  readonly id: string;
  readonly email: string;
}

/** Sign-up and sign-in with email and password (scrypt, src/auth/passwords.ts), throttled. */
export function createAccounts(users: UsersRepository, throttle: LoginThrottle) {
  return {
    async signUp(email: string, password: string, ip: string): Promise<AccountUser> {
      const normalized = email.trim().toLowerCase();
      await throttle.beforeAttempt(ip, normalized);
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(normalized) || normalized.length > 254 || normalized.endsWith(`@${ORGANIZATION_EMAIL_DOMAIN}`)) {
        throw errors.invalidRequest('Enter a valid email address.', 'email');
      }
      if (password.length < MIN_PASSWORD_LENGTH) throw errors.invalidRequest(`The password must have at least ${MIN_PASSWORD_LENGTH} characters.`, 'password');
      if (password.length > MAX_PASSWORD_LENGTH) throw errors.invalidRequest(`The password must have at most ${MAX_PASSWORD_LENGTH} characters.`, 'password');
      if ((await users.findByEmail(normalized)) !== undefined) throw errors.emailTaken();
      try {
        const row = await users.create(normalized, await hashPassword(password));
        return { id: row.id, email: row.email };
      } catch (error) {
        // Two sign-ups racing for one email: the unique index decides.
        if ((await users.findByEmail(normalized)) !== undefined) throw errors.emailTaken();
        throw error;
      }
    },

    async signIn(email: string, password: string, ip: string): Promise<AccountUser> {
      const normalized = email.trim().toLowerCase();
      await throttle.beforeAttempt(ip, normalized);
      const user = password.length <= MAX_PASSWORD_LENGTH ? await users.findByEmail(normalized) : undefined;
      const valid = user !== undefined ? await verifyPassword(password, user.password_hash) : (await verifyPassword(password, DECOY_PASSWORD_HASH), false);
      if (user === undefined || !valid) {
        await throttle.failed(ip, normalized);
        throw errors.invalidCredentials();
      }
      await throttle.succeeded(ip, normalized);
      return { id: user.id, email: user.email };
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
