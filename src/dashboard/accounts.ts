import { createHash, randomBytes } from 'node:crypto';
import { DECOY_PASSWORD_HASH, type PasswordHasher } from '../auth/passwords.js';
import { normalizeEmail } from '../lib/email-address.js';
import { errors } from '../lib/errors.js';
import { ORGANIZATION_EMAIL_DOMAIN } from '../storage/organizations-repository.js';
import type { SignupVerificationsRepository } from '../storage/signup-verifications-repository.js';
import type { UsersRepository } from '../storage/users-repository.js';
import type { LoginThrottle } from './login-throttle.js';
import type { Mailer } from './mailer.js';
import { MAX_PASSWORD_LENGTH, emailWords, type PasswordRules } from './password-rules.js';

const HOUR = 3_600_000;
/** How long a sign-up's link works. */
export const VERIFICATION_TTL_MS = 24 * HOUR;
/** Sign-up mails one address is sent per hour at most; more sign-ups get the same answer and no mail. */
export const MAILS_PER_ADDRESS_PER_HOUR = 3;
/** A link's token: 32 random bytes, base64url. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The owner the first start creates (src/bootstrap.ts), whose password the server prints once. */
export const BOOTSTRAP_OWNER_EMAIL = 'admin@modelport.local';
/** How long the one-time sign-in link printed by the first start works. */
export const SIGN_IN_LINK_TTL_MS = 30 * 60_000;
/**
 * A sign-in link is kept in the sign-up verifications' table (hashed token, address, expiry) with this in place of a
 * password hash: no password verifies against it, and sign-up's verify() refuses such a row outright.
 */
const SIGN_IN_LINK_MARK = 'sign-in-link';

/**
 * Stores a single-use sign-in link for `email`, valid SIGN_IN_LINK_TTL_MS, and returns its token (only its SHA-256
 * is stored, as for sessions and sign-up links). The first start prints it so its owner reaches the dashboard in one click.
 */
export async function issueSignInLink(verifications: SignupVerificationsRepository, email: string, at: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await verifications.create({ tokenHash: hashToken(token), email, passwordHash: SIGN_IN_LINK_MARK, createdAt: at, expiresAt: at + SIGN_IN_LINK_TTL_MS });
  return token;
}

/** Who may sign up, and how their link reaches them (docs/security.md, Accounts). */
export interface SignUpSettings {
  /** Anyone may sign up (MODELPORT_SIGNUP=open); closed, accounts come from the operator (`modelport user create`). */
  readonly open: boolean;
  readonly mailer: Mailer;
  /** The dashboard's address as its users reach it, without a trailing slash: links in mails point there. */
  readonly publicUrl: string;
}

export interface AccountsOptions {
  readonly signUp: SignUpSettings;
  readonly verifications: SignupVerificationsRepository;
  readonly passwordRules: PasswordRules;
  readonly now: () => number;
}

function confirmationMail(email: string, link: string) {
  return {
    to: email,
    link,
    subject: 'Confirm your email address for ModelPort',
    text: [
      'Someone, probably you, asked to create a ModelPort account with this address.',
      '',
      'To finish, open this link and enter the password you chose:',
      link,
      '',
      `The link works once, for ${VERIFICATION_TTL_MS / HOUR} hours. If this address already has an account, the page says so: sign in instead.`,
      'If you did not ask for an account, ignore this mail: nothing is created without the link and that password.',
    ].join('\n'),
  };
}

export interface AccountUser {
  readonly id: string;
  readonly email: string;
}

/**
 * Sign-up, address verification and sign-in with email and password (scrypt, src/auth/passwords.ts), throttled.
 * An account exists only once its address is confirmed: sign-up stores the request and mails a link, and the
 * link with the same password creates the account. Nobody can sign in as, or be invited as, an address they do not read.
 */
export function createAccounts(users: UsersRepository, throttle: LoginThrottle, passwords: PasswordHasher, options: AccountsOptions) {
  const { signUp: settings, verifications, passwordRules, now } = options;
  return {
    /** Whether anyone may sign up (else 403 `signup_closed`). */
    signUpOpen: settings.open,

    /**
     * Answers the same, and does the same work (the hash, the stored request, the mail), whether or not the address
     * already has an account: only its mailbox learns that, when the link comes back (409 `email_taken` then).
     */
    async signUp(email: string, password: string, ip: string): Promise<void> {
      if (!settings.open) throw errors.signUpClosed();
      const normalized = normalizeEmail(email);
      await throttle.beforeAttempt(ip, normalized ?? email);
      if (normalized === undefined || normalized.endsWith(`@${ORGANIZATION_EMAIL_DOMAIN}`)) {
        throw errors.invalidRequest('Enter a valid email address: no spaces, control characters or markup.', 'email');
      }
      await passwordRules.check(password, emailWords(normalized));
      const passwordHash = await passwords.hash(password);
      const at = now();
      await verifications.deleteExpired(at);
      if ((await verifications.countSince(normalized, at - HOUR)) >= MAILS_PER_ADDRESS_PER_HOUR) return;
      const token = randomBytes(32).toString('base64url');
      await verifications.create({ tokenHash: hashToken(token), email: normalized, passwordHash, createdAt: at, expiresAt: at + VERIFICATION_TTL_MS });
      settings.mailer.send(confirmationMail(normalized, `${settings.publicUrl}/signup/verify#token=${token}`));
    },

    /**
     * The link came back: with the password chosen at sign-up (so a mailbox owner who clicks a link someone else
     * asked for cannot end up in an account whose password that someone knows), the account is created and signed in.
     * The token works once.
     */
    async verify(token: string, password: string, ip: string): Promise<AccountUser> {
      // Closing sign-up also stops the links already sent.
      if (!settings.open) throw errors.signUpClosed();
      const tokenHash = hashToken(token);
      const pending = TOKEN_SHAPE.test(token) ? await verifications.find(tokenHash) : undefined;
      if (pending === undefined || pending.expiresAt <= now() || pending.passwordHash === SIGN_IN_LINK_MARK) throw errors.verificationInvalid();
      await throttle.beforeSignIn(ip, pending.email);
      let valid: boolean;
      try {
        valid = password.length <= MAX_PASSWORD_LENGTH && (await passwords.verify(password, pending.passwordHash));
      } catch (error) {
        await throttle.cancelled(ip, pending.email);
        throw error;
      }
      if (!valid) throw errors.invalidCredentials();
      await throttle.succeeded(ip, pending.email);
      if (!(await verifications.consume(tokenHash))) throw errors.verificationInvalid();
      try {
        if ((await users.findByEmail(pending.email)) !== undefined) throw errors.emailTaken();
        const row = await users.create(pending.email, pending.passwordHash).catch(async (error: unknown) => {
          // Two links of one address confirmed at once: the unique index decides.
          throw (await users.findByEmail(pending.email)) !== undefined ? errors.emailTaken() : error;
        });
        return { id: row.id, email: row.email };
      } finally {
        await verifications.deleteForEmail(pending.email);
      }
    },

    /**
     * A sign-in link (issueSignInLink) came back: its account, once; undefined when the link is unknown, used or
     * expired, or its account is gone. Works whether or not sign-up is open.
     */
    async redeemSignInLink(token: string): Promise<AccountUser | undefined> {
      if (!TOKEN_SHAPE.test(token)) return undefined;
      const tokenHash = hashToken(token);
      const link = await verifications.find(tokenHash);
      if (link === undefined || link.passwordHash !== SIGN_IN_LINK_MARK) return undefined;
      if (link.expiresAt <= now() || !(await verifications.consume(tokenHash))) {
        await verifications.deleteExpired(now());
        return undefined;
      }
      const user = await users.findByEmail(link.email);
      return user === undefined ? undefined : { id: user.id, email: user.email };
    },

    /**
     * Whether the server looks freshly installed: its only account is the owner the first start created, whose
     * credentials (and a one-time sign-in link) were printed in the server's output. The sign-in page says so.
     */
    async firstStart(): Promise<boolean> {
      return (await users.count()) === 1 && (await users.findByEmail(BOOTSTRAP_OWNER_EMAIL)) !== undefined;
    },

    async signIn(email: string, password: string, ip: string): Promise<AccountUser> {
      const normalized = email.trim().toLowerCase();
      // Counted before the hash (and forgotten on success): parallel guesses cannot all pass a check made before any was counted.
      await throttle.beforeSignIn(ip, normalized);
      let user: Awaited<ReturnType<UsersRepository['findByEmail']>>;
      let valid: boolean;
      try {
        user = password.length <= MAX_PASSWORD_LENGTH ? await users.findByEmail(normalized) : undefined;
        valid = user !== undefined ? await passwords.verify(password, user.password_hash) : (await passwords.verify(password, DECOY_PASSWORD_HASH), false);
      } catch (error) {
        // No verdict on the password (no hashing slot free, the database down): the attempt does not count.
        await throttle.cancelled(ip, normalized);
        throw error;
      }
      if (user === undefined || !valid) throw errors.invalidCredentials();
      await throttle.succeeded(ip, normalized);
      return { id: user.id, email: user.email };
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
