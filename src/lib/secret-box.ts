import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Seals short secrets (owners' provider keys) with AES-256-GCM under a key
 * derived from the server secret. Each value gets a random 12-byte IV; the
 * 16-byte tag makes any change to the stored text fail to open. A context
 * string (the owner and provider) is bound in as additional data, so a sealed
 * key copied into another owner's row does not open there either.
 *
 * Stored form: `v1:<iv>:<ciphertext>:<tag>`, each part base64.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Throws SecretBoxError when the text was altered, sealed for another context, or under another secret. */
  open(sealed: string, context: string): string;
}

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The least a server secret may have; a random 32-byte value in base64 has 44. */
export const MIN_SECRET_LENGTH = 32;

/**
 * The AES key is HKDF-SHA256 of the secret. HKDF suits a secret that is
 * already random (what MODELPORT_SECRET_KEY must be, e.g. `openssl rand -base64 32`);
 * it does not stretch a memorable passphrase, which is why short secrets are refused.
 */
export function createSecretBox(secret: string): SecretBox {
  if (secret.length < MIN_SECRET_LENGTH) throw new SecretBoxError(`The secret must have at least ${MIN_SECRET_LENGTH} characters.`);
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'modelport', 'modelport provider credentials v1', 32));

  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), ciphertext.toString('base64'), cipher.getAuthTag().toString('base64')].join(':');
    },
    open(sealed, context) {
      const parts = sealed.split(':');
      const [version, ivText, ciphertextText, tagText] = parts;
      if (parts.length !== 4 || version !== VERSION || ivText === undefined || ciphertextText === undefined || tagText === undefined) {
        throw new SecretBoxError('The sealed value is not in the v1:iv:ciphertext:tag form.');
      }
      const iv = Buffer.from(ivText, 'base64');
      const tag = Buffer.from(tagText, 'base64');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('The sealed value has a malformed IV or tag.');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('The sealed value does not open: it was altered, or sealed under another server secret (MODELPORT_SECRET_KEY).');
      }
    },
  };
}
