/**
 * Removes credentials from text that is about to be stored (logged request and response bodies): ModelPort keys
 * (`mp_…`), OpenAI-style secret keys (`sk-…`), bearer tokens, and the literal secrets given (the provider keys the
 * server holds). What is removed reads `[redacted]`, so a reader sees that something was there.
 */
const PATTERNS: readonly RegExp[] = [/mp_[0-9A-Za-z]{8,}/g, /sk-[0-9A-Za-z_-]{8,}/g, /Bearer\s+[0-9A-Za-z._~+/=-]{8,}/gi];

/** Secrets shorter than this are not redacted by value: too likely to match ordinary words. */
const MIN_SECRET_LENGTH = 8;

export type SecretRedactor = (text: string) => string;

export function createSecretRedactor(secrets: Iterable<string | undefined> = []): SecretRedactor {
  const literal = [...new Set([...secrets].filter((secret): secret is string => secret !== undefined && secret.length >= MIN_SECRET_LENGTH))]
    // Longest first: a secret that contains another is removed whole.
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let result = text;
    for (const secret of literal) if (result.includes(secret)) result = result.split(secret).join('[redacted]');
    for (const pattern of PATTERNS) result = result.replace(pattern, '[redacted]');
    return result;
  };
}
