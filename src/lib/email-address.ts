/**
 * The one rule for an email address a person types: the HTML standard's "valid e-mail address" (what a browser's
 * `<input type="email">` accepts), plus a dot in the domain and RFC 5321's 254 characters. It is ASCII only, so
 * control characters (NUL included), spaces, quotes and markup (`<`, `>`, `"`, `(`, `)`, `;`, `\`) never pass, and an
 * address that passes can be shown in a page or a mail header as it is.
 * @see https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address
 */
const VALID_EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

export const MAX_EMAIL_LENGTH = 254;

/** The address lower-cased and without surrounding spaces, or undefined when it breaks the rule. */
export function normalizeEmail(input: string): string | undefined {
  const email = input.trim().toLowerCase();
  return email.length <= MAX_EMAIL_LENGTH && VALID_EMAIL.test(email) ? email : undefined;
}
