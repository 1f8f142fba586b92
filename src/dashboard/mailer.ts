import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** The link the mail carries, for a transport that shows it to the operator instead of sending the mail. */
  readonly link: string;
}

/** Where the dashboard's mail goes (docs/security.md, Accounts). */
export interface Mailer {
  /** `smtp`: sent through the operator's server; `log`: written to the log for the operator to forward. */
  readonly transport: 'smtp' | 'log';
  /**
   * Hands the mail over and returns at once: the answer to the request that caused it must not wait for, or
   * depend on, the mail server (a sign-up's answer is the same whether or not a mail went). A failure is logged.
   */
  send(message: MailMessage): void;
}

/** Mail through an SMTP server, e.g. `smtps://user:password@smtp.example.com:465` (nodemailer's connection URL). */
export function createSmtpMailer(options: { readonly url: string; readonly from: string }, logger: Logger): Mailer {
  const transport = nodemailer.createTransport(options.url);
  return {
    transport: 'smtp',
    send(message) {
      transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text }).catch((error: unknown) => {
        logger.error({ err: error, to: message.to }, 'mail not sent: the SMTP server refused it or could not be reached (MODELPORT_SMTP_URL)');
      });
    },
  };
}

/** No mail server: each link goes to the log (warn), for the operator to forward to the address it names. */
export function createLogMailer(logger: Logger): Mailer {
  return {
    transport: 'log',
    send(message) {
      logger.warn({ to: message.to, link: message.link }, `${message.subject}: no mail transport (MODELPORT_SMTP_URL), forward this link to ${message.to}`);
    },
  };
}

/** What config.ts reads for accounts (MODELPORT_SIGNUP, MODELPORT_SMTP_URL, MODELPORT_MAIL_FROM, MODELPORT_PUBLIC_URL). */
export interface SignUpConfig {
  readonly signUp: 'open' | 'closed';
  readonly smtp: { readonly url: string; readonly from: string } | undefined;
  readonly publicUrl: string | undefined;
}

/**
 * The sign-up settings the accounts use: the operator's SMTP server, else the log. `ownAddress` is where links
 * point without MODELPORT_PUBLIC_URL (only possible without SMTP: config.ts requires it with SMTP). Never the
 * request's Host header: a forged one would send the link, token and all, to another site.
 */
export function createSignUpSettings(config: SignUpConfig, ownAddress: string, logger: Logger, mailer?: Mailer): { open: boolean; mailer: Mailer; publicUrl: string } {
  const chosen = mailer ?? (config.smtp !== undefined ? createSmtpMailer(config.smtp, logger) : createLogMailer(logger));
  if (config.signUp === 'open' && chosen.transport === 'log') {
    logger.warn('sign-up is open without a mail transport (MODELPORT_SMTP_URL): confirmation links are written to this log, for you to forward');
  }
  return { open: config.signUp === 'open', mailer: chosen, publicUrl: config.publicUrl ?? ownAddress };
}
