import type { Mailer, MailMessage } from '../../src/dashboard/mailer.js';

/**
 * A mail transport that keeps what it is given, in place of the operator's SMTP server: tests read sign-up
 * confirmation links from it as a person reads them from their mailbox (docs/dashboard.md, Tests).
 */
export interface MailOutbox extends Mailer {
  readonly messages: MailMessage[];
  /** The newest confirmation link mailed to `email` (compared lower-cased), if any. */
  latestLink(email: string): URL | undefined;
  /** That link's token. */
  latestToken(email: string): string | undefined;
}

export function createMailOutbox(): MailOutbox {
  const messages: MailMessage[] = [];
  return {
    transport: 'smtp',
    messages,
    send(message) {
      messages.push(message);
    },
    latestLink(email) {
      const address = email.trim().toLowerCase();
      const newest = messages.filter((message) => message.to === address).at(-1);
      return newest === undefined ? undefined : new URL(newest.link);
    },
    latestToken(email) {
      return this.latestLink(email)?.hash.replace(/^#token=/, '');
    },
  };
}

// The harness files each gateway's outbox under its origin, so that `DashboardClient.signUp(email)` (which knows only
// the origin) can finish a sign-up the way a person does: open the mailed link, enter the same password.
const outboxes = new Map<string, MailOutbox>();

export function registerOutbox(origin: string, outbox: MailOutbox): void {
  outboxes.set(origin, outbox);
}

export function unregisterOutbox(origin: string): void {
  outboxes.delete(origin);
}

export function outboxFor(origin: string): MailOutbox | undefined {
  return outboxes.get(origin);
}
