import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MIN_SECRET_LENGTH, createSecretBox, type SecretBox } from './secret-box.js';

/** No server secret can be had (Postgres without MODELPORT_SECRET_KEY, an unreadable key file…); the message says what to do. */
export class ServerSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerSecretError';
  }
}

export interface ServerSecret {
  /** For storing a key: the secret, created on first use where that is safe. Throws ServerSecretError otherwise. */
  forSealing(): SecretBox;
  /** For reading keys back: undefined while no secret exists (then nothing was ever sealed with it). */
  forOpening(): SecretBox | undefined;
}

export interface ServerSecretOptions {
  /** MODELPORT_SECRET_KEY, when set. */
  readonly configured: string | undefined;
  /** The SQLite file of DATABASE_URL (`:memory:` included); undefined for Postgres. */
  readonly sqliteFile: string | undefined;
}

/** Where the generated secret of a SQLite deployment lives: beside the database file. */
export function secretFileFor(sqliteFile: string): string {
  return join(dirname(sqliteFile), 'secret.key');
}

/**
 * The secret that seals owners' provider keys. MODELPORT_SECRET_KEY wins. Without
 * it, a SQLite deployment (one machine, CLI and server sharing the file) gets a
 * random secret generated on first use into `secret.key` beside the database,
 * mode 0600, so the quick start needs no setup. Postgres deployments usually run
 * several instances, which must all share one secret, so there nothing is
 * generated and storing a key is refused until the operator sets one.
 */
export function createServerSecret(options: ServerSecretOptions): ServerSecret {
  let box: SecretBox | undefined;
  const remember = (secret: string): SecretBox => {
    box = createSecretBox(secret);
    return box;
  };

  if (options.configured !== undefined) {
    const configured = remember(options.configured);
    return { forSealing: () => configured, forOpening: () => configured };
  }
  const sqliteFile = options.sqliteFile;
  if (sqliteFile === undefined) {
    return {
      forSealing() {
        throw new ServerSecretError(
          'Storing provider keys with a Postgres database needs MODELPORT_SECRET_KEY (at least 32 random characters, e.g. from "openssl rand -base64 32"), the same on every instance and for the CLI.',
        );
      },
      forOpening: () => undefined,
    };
  }
  if (sqliteFile === ':memory:') {
    // The database lives only as long as this process, so may its secret.
    const ephemeral = remember(randomBytes(32).toString('base64'));
    return { forSealing: () => ephemeral, forOpening: () => ephemeral };
  }

  const file = secretFileFor(sqliteFile);
  return {
    forSealing() {
      if (box !== undefined) return box;
      const existing = readSecretFile(file);
      if (existing !== undefined) return remember(existing);
      const secret = randomBytes(32).toString('base64');
      mkdirSync(dirname(file), { recursive: true });
      try {
        // `wx`: if another process (the server, the CLI) created it meanwhile, theirs wins.
        writeFileSync(file, `${secret}\n`, { flag: 'wx', mode: 0o600 });
        return remember(secret);
      } catch (error) {
        const created = readSecretFile(file);
        if (created !== undefined) return remember(created);
        throw new ServerSecretError(`Could not create the secret file ${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    forOpening() {
      if (box !== undefined) return box;
      const existing = readSecretFile(file);
      return existing === undefined ? undefined : remember(existing);
    },
  };
}

function readSecretFile(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw new ServerSecretError(`Could not read the secret file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const secret = text.trim();
  if (secret === '') return undefined;
  if (secret.length < MIN_SECRET_LENGTH) throw new ServerSecretError(`The secret file ${file} holds fewer than ${MIN_SECRET_LENGTH} characters; it is not one ModelPort wrote.`);
  return secret;
}
