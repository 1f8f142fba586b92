import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ServerSecretError, createServerSecret, secretFileFor } from './server-secret.js';

const CONTEXT = 'modelport:provider_credentials:usr_1:openai';

describe('server secret', () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelport-secret-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('with SQLite and no MODELPORT_SECRET_KEY: generates secret.key beside the database on first seal, mode 0600, and reuses it', () => {
    const database = join(directory, 'data', 'modelport.db');
    const first = createServerSecret({ configured: undefined, sqliteFile: database });
    assert.equal(first.forOpening(), undefined, 'nothing to open with before anything was sealed');
    const sealed = first.forSealing().seal('sk-owner', CONTEXT);
    const file = secretFileFor(database);
    assert.equal(file, join(directory, 'data', 'secret.key'));
    if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(readFileSync(file, 'utf8').trim().length >= 32);
    // Another process (the server, the CLI) on the same database opens it.
    const second = createServerSecret({ configured: undefined, sqliteFile: database });
    assert.equal(second.forOpening()?.open(sealed, CONTEXT), 'sk-owner');
    assert.equal(second.forSealing().open(sealed, CONTEXT), 'sk-owner');
  });

  it('prefers MODELPORT_SECRET_KEY, which opens the same values in every process', () => {
    const configured = 'k'.repeat(44);
    const sealed = createServerSecret({ configured, sqliteFile: undefined }).forSealing().seal('sk-owner', CONTEXT);
    assert.equal(createServerSecret({ configured, sqliteFile: join(directory, 'x.db') }).forOpening()?.open(sealed, CONTEXT), 'sk-owner');
  });

  it('with Postgres and no MODELPORT_SECRET_KEY: refuses to seal, with what to do', () => {
    const secret = createServerSecret({ configured: undefined, sqliteFile: undefined });
    assert.throws(() => secret.forSealing(), (error: unknown) => error instanceof ServerSecretError && /needs MODELPORT_SECRET_KEY/.test(error.message));
    assert.equal(secret.forOpening(), undefined);
  });

  it('refuses a key file it did not write', () => {
    const database = join(directory, 'bad', 'modelport.db');
    const secret = createServerSecret({ configured: undefined, sqliteFile: database });
    secret.forSealing();
    writeFileSync(secretFileFor(database), 'short\n');
    const fresh = createServerSecret({ configured: undefined, sqliteFile: database });
    assert.throws(() => fresh.forOpening(), /fewer than 32 characters/);
  });
});
