import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './config.js';

describe('config: MODELPORT_USAGE_WRITER', () => {
  it('defaults to the writer thread, takes inline, and refuses anything else', () => {
    assert.equal(loadConfig({}).usageWriter, 'thread');
    assert.equal(loadConfig({ MODELPORT_USAGE_WRITER: 'inline' }).usageWriter, 'inline');
    assert.throws(() => loadConfig({ MODELPORT_USAGE_WRITER: 'threads' }), ConfigError);
  });
});

describe('config: DATABASE_URL', () => {
  it('defaults to data/modelport.db in the package folder, whatever the working directory', () => {
    const packageRoot = fileURLToPath(new URL('..', import.meta.url));
    const before = process.cwd();
    try {
      process.chdir(tmpdir());
      const url = loadConfig({}).databaseUrl;
      assert.ok(isAbsolute(url), url);
      assert.equal(url, join(packageRoot, 'data', 'modelport.db'));
    } finally {
      process.chdir(before);
    }
    assert.equal(loadConfig({ DATABASE_URL: './elsewhere.db' }).databaseUrl, './elsewhere.db');
  });
});
