import { hash } from 'node:crypto';
import { randomBase62 } from '../lib/random-id.js';

/** `mp_` followed by 40 base62 characters from the CSPRNG (≈ 238 bits). */
export const API_KEY_PREFIX = 'mp_';
const API_KEY_BODY_LENGTH = 40;
const API_KEY_PATTERN = /^mp_[0-9A-Za-z]{32,128}$/;

export interface GeneratedApiKey {
  /** The whole key: shown once, never stored. */
  readonly value: string;
  readonly hash: string;
  /** Enough of the key for its owner to recognise it in a list. */
  readonly displayPrefix: string;
}

export function generateApiKey(): GeneratedApiKey {
  const value = `${API_KEY_PREFIX}${randomBase62(API_KEY_BODY_LENGTH)}`;
  return { value, hash: hashApiKey(value), displayPrefix: value.slice(0, 9) };
}

/** SHA-256, hex. The one-shot `crypto.hash` (every request hashes its key) takes a third of a Hash object's time. */
export function hashApiKey(value: string): string {
  return hash('sha256', value, 'hex');
}

export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/** Reads the key from `Authorization: Bearer …`; undefined when absent or not a bearer token. */
export function readBearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Anything shaped like a key, masked for logs: clients do paste keys into URLs by mistake (e.g. as the router id). */
export function redactApiKeys(text: string): string {
  return text.replace(/mp_[0-9A-Za-z]{8,}/g, 'mp_[redacted]');
}
