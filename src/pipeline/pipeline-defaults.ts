/**
 * How long a request may search for an answer across its fallback attempts, unless the operator sets
 * MODELPORT_FALLBACK_DEADLINE_MS: five minutes, longer than any normal answer and shorter than the OpenAI SDKs' own
 * ten-minute timeout, so the client hears why. A stream is bounded only until its first part.
 */
export const DEFAULT_FALLBACK_DEADLINE_MS = 300_000;
