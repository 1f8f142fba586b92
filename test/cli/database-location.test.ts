import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createAdminService } from '../../src/admin/admin-service.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTempDatabase, parseJsonObject, runModelport } from './run-modelport.js';

/**
 * The CLI run from another directory than the server finds the server's records, says where, and never invents a
 * database. Every run is a process of its own: the working directory is process-wide.
 */
describe('the CLI finds the database the server uses', () => {
  const database = createTempDatabase();
  const elsewhere = mkdtempSync(join(tmpdir(), 'modelport-cwd-'));
  let app: App;
  let requestId = '';
  let routerId = '';

  before(async () => {
    const config = loadConfig({ DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'silent', MODELPORT_BOOTSTRAP: 'false', MODELPORT_SIM_TIME_SCALE: '0', MODELPORT_USAGE_FLUSH_MS: '50' });
    app = await createApp(config, pino({ level: 'silent' }));
    const admin = createAdminService(app.repositories, app.catalog);
    await admin.createUser('owner@example.com', 'correct horse battery');
    const router = await admin.createRouter({ ownerEmail: 'owner@example.com', name: 'r', models: ['sim:small'], strategy: 'cost_optimized' });
    routerId = router.id;
    const { value } = await admin.createKey({ ownerEmail: 'owner@example.com', name: 'k' });
    const answer = await app.server.inject({
      method: 'POST',
      url: '/api/router/chat/completions',
      headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ model: router.id, messages: [{ role: 'user', content: 'hello' }] }),
    });
    assert.equal(answer.statusCode, 200, answer.body);
    requestId = String(answer.headers['x-request-id']);
    await app.usage.flush();
  });

  after(async () => {
    await app?.close();
    database.remove();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('from another working directory: the records, and one stderr line naming the database', async () => {
    const run = await runModelport(database.url, ['usage', 'list'], { process: true, cwd: elsewhere });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes(routerId) && !run.stdout.includes('no usage records'), run.stdout);
    assert.equal(run.stderr.split('\n').filter((line) => line.startsWith('database: ')).join(), `database: ${database.url}`);
    const json = await runModelport(database.url, ['usage', 'list', '--json'], { process: true, cwd: elsewhere });
    assert.equal(json.stderr, '');
    assert.equal((parseJsonObject(json.stdout).usage as Array<{ id: string }>)[0]?.id, requestId);
    assert.ok(!existsSync(join(elsewhere, 'data')), 'nothing created in the working directory');
  });

  it('a relative DATABASE_URL is taken from the working directory and named in full', async () => {
    const run = await runModelport(basename(database.url), ['usage', 'list'], { process: true, cwd: dirname(database.url) });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, new RegExp(`^database: ${database.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  });

  it('a read on a missing SQLite file is an error, exit 1, and creates nothing', async () => {
    const missing = join(elsewhere, 'nowhere', 'modelport.db');
    for (const args of [['usage', 'list'], ['router', 'list'], ['key', 'list', '--owner', 'owner@example.com']]) {
      const run = await runModelport(missing, args, { process: true, cwd: elsewhere });
      assert.equal(run.code, 1, `${args.join(' ')}: ${run.stdout}`);
      assert.match(run.stderr, /^error: No database at .*nowhere\/modelport\.db \(DATABASE_URL\)/m);
      assert.equal(run.stdout, '');
    }
    const json = await runModelport(missing, ['usage', 'list', '--json'], { process: true, cwd: elsewhere });
    assert.equal(json.code, 1);
    assert.match((parseJsonObject(json.stdout).error as { message: string }).message, /No database at/);
    assert.ok(!existsSync(join(elsewhere, 'nowhere')), 'neither the file nor its directory was created');
  });
});
