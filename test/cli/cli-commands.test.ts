import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { migrateToLatest, openStorage } from '../../src/storage/database.js';
import { createTempDatabase, hasStackTrace, parseJsonObject, runModelport, runModelportInProcess, type CliRun } from './run-modelport.js';

const OWNER = 'owner@example.com';
const OTHER = 'other@example.com';
const PASSWORD = 'correct horse battery';
const DAY_MS = 86_400_000;

interface KeyJson {
  id: string;
  name: string;
  displayPrefix: string;
  routers: string[] | null;
  rpm: number | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  status: string;
}

function assertExit(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

describe('modelport CLI on SQLite', () => {
  const database = createTempDatabase();
  const cli = (...args: string[]) => runModelport(database.url, args);
  let routerId = '';
  let otherRouterId = '';

  after(() => database.remove());

  it('user create stores a scrypt hash, never the password', async () => {
    const run = await cli('user', 'create', '--email', OWNER, '--password', PASSWORD);
    assertExit(run, 0);
    assert.match(run.stdout, /Created user owner@example\.com \(usr_[0-9A-Za-z]+\)/);
    // The real executable, the password through its stdin pipe.
    const other = await runModelport(database.url, ['user', 'create', '--email', OTHER, '--password-stdin', '--json'], { input: `${PASSWORD}\n`, process: true });
    assertExit(other, 0);
    assert.equal((parseJsonObject(other.stdout).user as { email: string }).email, OTHER);

    const sqlite = new SqliteDatabase(database.url, { readonly: true });
    const rows = sqlite.prepare('select email, password_hash from users order by email').all() as Array<{ email: string; password_hash: string }>;
    sqlite.close();
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.match(row.password_hash, /^scrypt\$/);
      assert.ok(!row.password_hash.includes(PASSWORD));
    }
  });

  it('user create refuses a duplicate email and a short password with exit 1', async () => {
    const duplicate = await cli('user', 'create', '--email', OWNER, '--password', PASSWORD);
    assertExit(duplicate, 1);
    assert.match(duplicate.stderr, /already exists/);
    // The dashboard's rule: nine characters are refused, as is a common password of ten or more.
    const short = await cli('user', 'create', '--email', 'new@example.com', '--password', 'ninechars');
    assertExit(short, 1);
    assert.match(short.stderr, /at least 10 characters/);
    assert.ok(!hasStackTrace(short.stderr));
    const common = await cli('user', 'create', '--email', 'new@example.com', '--password', 'password123');
    assertExit(common, 1);
    assert.match(common.stderr, /too easy to guess/);
  });

  it('router create prints only the router id', async () => {
    const run = await cli('router', 'create', '--owner', OWNER, '--name', 'support', '--models', 'sim:small, sim:medium', '--strategy', 'cost_optimized');
    assertExit(run, 0);
    assert.match(run.stdout, /^rt_[0-9A-Za-z]{22}\n$/);
    routerId = run.stdout.trim();
  });

  it('router create --json prints one JSON object', async () => {
    const run = await cli('router', 'create', '--owner', OTHER, '--name', 'theirs', '--models', 'sim:large', '--strategy', 'quality_optimized', '--json');
    assertExit(run, 0);
    assert.equal(run.stderr, '');
    const body = parseJsonObject(run.stdout);
    assert.deepEqual(Object.keys(body), ['router']);
    const router = body.router as { id: string; owner: string; strategy: string; models: string[]; createdAt: string };
    assert.match(router.id, /^rt_[0-9A-Za-z]{22}$/);
    assert.equal(router.owner, OTHER);
    assert.equal(router.strategy, 'quality_optimized');
    assert.deepEqual(router.models, ['sim:large']);
    assert.ok(!Number.isNaN(Date.parse(router.createdAt)));
    otherRouterId = router.id;
  });

  it('router create refuses a bad strategy, an unknown model and an unknown owner with exit 1', async () => {
    const strategy = await runModelport(database.url, ['router', 'create', '--owner', OWNER, '--name', 'x', '--models', 'sim:small', '--strategy', 'cheapest'], { process: true });
    assertExit(strategy, 1);
    assert.match(strategy.stderr, /Unknown strategy "cheapest"\. Use one of: cost_optimized, latency_optimized/);
    assert.equal(strategy.stdout, '');

    const model = await cli('router', 'create', '--owner', OWNER, '--name', 'x', '--models', 'sim:small,sim:nope', '--strategy', 'balanced');
    assertExit(model, 1);
    assert.match(model.stderr, /Unknown model\(s\): sim:nope/);

    const owner = await cli('router', 'create', '--owner', 'nobody@example.com', '--name', 'x', '--models', 'sim:small', '--strategy', 'auto');
    assertExit(owner, 1);
    assert.match(owner.stderr, /No user with email nobody@example\.com/);

    const json = await cli('router', 'create', '--owner', OWNER, '--name', 'x', '--models', 'sim:small', '--strategy', 'cheapest', '--json');
    assertExit(json, 1);
    assert.equal(json.stderr, '');
    const error = parseJsonObject(json.stdout).error as { message: string; type: string; code: string };
    assert.match(error.message, /Unknown strategy/);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'invalid_input');
    for (const run of [strategy, model, owner]) assert.ok(!hasStackTrace(run.stderr));
  });

  it('router list shows every router, or one owner\'s', async () => {
    const all = parseJsonObject((await cli('router', 'list', '--json')).stdout).routers as Array<{ id: string; owner: string }>;
    assert.deepEqual(all.map((router) => router.id).sort(), [routerId, otherRouterId].sort());
    const mine = parseJsonObject((await cli('router', 'list', '--owner', OWNER, '--json')).stdout).routers as Array<{ id: string }>;
    assert.deepEqual(mine.map((router) => router.id), [routerId]);
    const human = await cli('router', 'list');
    assertExit(human, 0);
    assert.match(human.stdout, /^ID\s+NAME\s+KIND\s+OWNER\s+STRATEGY\s+MODELS\s+CREATED\n/);
    assert.ok(human.stdout.includes(routerId) && human.stdout.includes('sim:small,sim:medium'));
  });

  it('key create prints the mp_ key once; key list never shows it or its hash', async () => {
    const created = await cli('key', 'create', '--owner', OWNER, '--name', 'backend');
    assertExit(created, 0);
    assert.match(created.stdout, /^mp_[0-9A-Za-z]{40}\n$/);
    const value = created.stdout.trim();
    const hash = createHash('sha256').update(value).digest('hex');
    assert.match(created.stderr, /cannot be shown again/);
    assert.ok(!created.stderr.includes(value), 'the key is printed exactly once');
    assert.ok(!created.stderr.includes(hash) && !created.stdout.includes(hash));

    const human = await cli('key', 'list', '--owner', OWNER);
    const json = await cli('key', 'list', '--owner', OWNER, '--json');
    for (const run of [human, json]) {
      assertExit(run, 0);
      assert.ok(!run.stdout.includes(value) && !run.stdout.includes(hash), run.stdout);
    }
    assert.match(human.stdout, /^ID\s+NAME\s+PREFIX\s+ROUTERS\s+RPM\s+CREATED\s+LAST USED\s+EXPIRES\s+STATUS\n/);
    const [key] = parseJsonObject(json.stdout).keys as KeyJson[];
    assert.ok(key !== undefined);
    assert.equal(key.name, 'backend');
    assert.ok(value.startsWith(key.displayPrefix));
    assert.ok(key.displayPrefix.length < 12);
    assert.equal(key.routers, null);
    assert.equal(key.rpm, null);
    assert.equal(key.expiresAt, null);
    assert.equal(key.lastUsedAt, null);
    assert.equal(key.status, 'active');

    const sqlite = new SqliteDatabase(database.url, { readonly: true });
    const stored = JSON.stringify(sqlite.prepare('select * from api_keys').all());
    sqlite.close();
    assert.ok(!stored.includes(value), 'the key itself is never stored');
  });

  it('key create stores --routers, --rpm and --expires-in 90d', async () => {
    const created = await cli('key', 'create', '--owner', OWNER, '--name', 'ci', '--routers', routerId, '--rpm', '60', '--expires-in', '90d', '--json');
    assertExit(created, 0);
    const body = parseJsonObject(created.stdout) as { key: KeyJson; value: string };
    assert.match(body.value, /^mp_/);

    const keys = parseJsonObject((await cli('key', 'list', '--owner', OWNER, '--json')).stdout).keys as KeyJson[];
    const key = keys.find((candidate) => candidate.id === body.key.id);
    assert.ok(key !== undefined);
    assert.deepEqual(key.routers, [routerId]);
    assert.equal(key.rpm, 60);
    assert.ok(key.expiresAt !== null);
    assert.equal(Date.parse(key.expiresAt) - Date.parse(key.createdAt), 90 * DAY_MS);
    assert.equal(key.status, 'active');
  });

  it('key create refuses another owner\'s router, a bad --rpm and a bad --expires-in with exit 1', async () => {
    const foreign = await cli('key', 'create', '--owner', OWNER, '--name', 'x', '--routers', otherRouterId);
    assertExit(foreign, 1);
    assert.match(foreign.stderr, new RegExp(`No router ${otherRouterId} belongs to ${OWNER}`));
    const rpm = await cli('key', 'create', '--owner', OWNER, '--name', 'x', '--rpm', 'lots');
    assertExit(rpm, 1);
    assert.match(rpm.stderr, /--rpm must be a whole number/);
    const zero = await cli('key', 'create', '--owner', OWNER, '--name', 'x', '--rpm', '0');
    assertExit(zero, 1);
    assert.match(zero.stderr, /--rpm must be a positive whole number/);
    const expires = await cli('key', 'create', '--owner', OWNER, '--name', 'x', '--expires-in', '3 months');
    assertExit(expires, 1);
    assert.match(expires.stderr, /not a duration/);
  });

  it('key revoke marks the key revoked; a second revoke is refused', async () => {
    const created = parseJsonObject((await cli('key', 'create', '--owner', OWNER, '--name', 'leaked', '--json')).stdout) as { key: KeyJson };
    const revoked = await cli('key', 'revoke', '--owner', OWNER, '--id', created.key.id);
    assertExit(revoked, 0);
    assert.match(revoked.stdout, new RegExp(`Revoked key ${created.key.id}`));

    const keys = parseJsonObject((await cli('key', 'list', '--owner', OWNER, '--json')).stdout).keys as KeyJson[];
    const key = keys.find((candidate) => candidate.id === created.key.id);
    assert.equal(key?.status, 'revoked');
    assert.ok(key?.revokedAt !== null);

    const again = await cli('key', 'revoke', '--owner', OWNER, '--id', created.key.id, '--json');
    assertExit(again, 1);
    assert.match((parseJsonObject(again.stdout).error as { message: string }).message, /No active key/);
    const foreign = await cli('key', 'revoke', '--owner', OTHER, '--id', keys[0]?.id ?? '');
    assertExit(foreign, 1);
  });

  it('usage list filters by key and owner and refuses unknown ones', async () => {
    const keys = parseJsonObject((await cli('key', 'list', '--owner', OWNER, '--json')).stdout).keys as KeyJson[];
    const byKey = await cli('usage', 'list', '--key', keys[0]?.id ?? '', '--owner', OWNER, '--since', '1h', '--limit', '5', '--json');
    assertExit(byKey, 0);
    assert.deepEqual(parseJsonObject(byKey.stdout), { usage: [] });
    const unknownKey = await cli('usage', 'list', '--key', 'key_doesnotexist0000');
    assertExit(unknownKey, 1);
    assert.match(unknownKey.stderr, /No key key_doesnotexist0000/);
    const otherOwnersKey = await cli('usage', 'list', '--key', keys[0]?.id ?? '', '--owner', OTHER);
    assertExit(otherOwnersKey, 1);
    const badSince = await cli('usage', 'list', '--since', 'yesterday');
    assertExit(badSince, 1);
    assert.match(badSince.stderr, /neither an ISO 8601 time/);
    const badLimit = await cli('usage', 'list', '--limit', '0');
    assertExit(badLimit, 1);
  });
});

describe('modelport CLI on an empty database', () => {
  const database = createTempDatabase();
  // An existing database with no rows (the server's first migration made it): reads answer "none". A missing file
  // is refused instead (database-location.test.ts).
  before(async () => {
    const storage = openStorage(database.url);
    await migrateToLatest(storage);
    await storage.close();
  });
  after(() => database.remove());

  it('usage list --json returns an empty list', async () => {
    const run = await runModelport(database.url, ['usage', 'list', '--json']);
    assertExit(run, 0);
    assert.deepEqual(parseJsonObject(run.stdout), { usage: [] });
  });

  it('router list says there are none', async () => {
    const run = await runModelport(database.url, ['router', 'list']);
    assertExit(run, 0);
    assert.equal(run.stdout, '(no routers)\n');
    assert.deepEqual(parseJsonObject((await runModelport(database.url, ['router', 'list', '--json'])).stdout), { routers: [] });
  });
});

describe('modelport models', () => {
  it('models list --json includes sim:small with prices and context window', async () => {
    const run = await runModelport('/nonexistent-dir/never-opened.db', ['models', 'list', '--json']);
    assertExit(run, 0);
    const models = parseJsonObject(run.stdout).models as Array<{ id: string; inputPerMTok: number; outputPerMTok: number; contextWindow: number; simulated: boolean }>;
    const small = models.find((model) => model.id === 'sim:small');
    assert.ok(small !== undefined);
    assert.equal(typeof small.inputPerMTok, 'number');
    assert.equal(typeof small.outputPerMTok, 'number');
    assert.ok(small.contextWindow > 0);
    assert.equal(small.simulated, true);
  });

  it('"models" alone lists the catalog as a table', async () => {
    const run = await runModelport('/nonexistent-dir/never-opened.db', ['models']);
    assertExit(run, 0);
    assert.match(run.stdout, /^ID\s+NAME\s+INPUT \$\/1M\s+OUTPUT \$\/1M\s+CONTEXT/);
    assert.match(run.stdout, /^sim:small\s/m);
  });
});

describe('modelport usage mistakes and help', () => {
  const database = createTempDatabase();
  after(() => database.remove());
  const cli = (...args: string[]) => runModelport(database.url, args);

  const mistakes: Array<{ args: string[]; message: RegExp }> = [
    { args: [], message: /Usage: modelport <noun> <verb>/ },
    { args: ['frobnicate'], message: /Unknown command "frobnicate"\. Commands: user, router, key, provider, model, models, usage/ },
    { args: ['router'], message: /"modelport router" needs a verb: create, update, list/ },
    { args: ['router', 'delete'], message: /Unknown command "router delete"/ },
    { args: ['router', 'list', '--colour'], message: /Unknown option --colour for "router list"/ },
    { args: ['router', 'create', '--owner', OWNER], message: /Missing required option --name for "router create"/ },
    { args: ['key', 'list'], message: /Missing required option --owner for "key list"/ },
    { args: ['key', 'list', '--owner'], message: /Option --owner needs a value/ },
    { args: ['key', 'list', OWNER], message: /Unexpected argument "owner@example\.com"/ },
    { args: ['user', 'create', '--email', OWNER], message: /Missing the password/ },
  ];
  for (const { args, message } of mistakes) {
    it(`"${args.join(' ')}" exits 2 with a clear message`, async () => {
      // No command at all through the real executable: its exit code and the overview on stderr.
      const run = args.length === 0 ? await runModelport(database.url, args, { process: true }) : await cli(...args);
      assertExit(run, 2);
      assert.match(run.stderr, message);
      assert.ok(!hasStackTrace(run.stderr), run.stderr);
    });
  }

  it('a usage mistake with --json is one JSON error object', async () => {
    const run = await cli('router', 'list', '--colour', '--json');
    assertExit(run, 2);
    assert.deepEqual(parseJsonObject(run.stdout), {
      error: { message: 'Unknown option --colour for "router list".', type: 'usage_error', code: 'invalid_usage' },
    });
  });

  it('--help works for the tool, every noun and every command', async () => {
    const top = await cli('--help');
    assertExit(top, 0);
    const commands = [...top.stdout.matchAll(/^ {2}(\w+) (\w+) {2,}/gm)].map((match) => [match[1] ?? '', match[2] ?? '']);
    assert.deepEqual(commands.map((words) => words.join(' ')), [
      'user create',
      'router create',
      'router update',
      'router list',
      'router calibrate',
      'key create',
      'key list',
      'key revoke',
      'provider add',
      'provider list',
      'provider test',
      'provider remove',
      'model add',
      'model list',
      'model remove',
      'models list',
      'usage list',
      'usage summary',
      'usage export',
      'feedback add',
      'agent create',
      'agent list',
      'agent show',
      'agent runs',
      'agent execution',
      'agent run',
      'agent delete',
      'eval routing',
    ]);
    for (const [noun, verb] of commands) {
      const nounHelp = await runModelportInProcess([noun ?? '', '--help']);
      assertExit(nounHelp, 0);
      assert.match(nounHelp.stdout, new RegExp(`^Usage: modelport ${noun} <verb>`));
      const help = await runModelportInProcess([noun ?? '', verb ?? '', '--help']);
      assertExit(help, 0);
      assert.match(help.stdout, new RegExp(`^Usage: modelport ${noun} ${verb}`));
      assert.match(help.stdout, /--json/);
      assert.match(help.stdout, /Examples:/);
    }
    const viaHelpWord = await cli('help', 'key', 'create');
    assertExit(viaHelpWord, 0);
    assert.match(viaHelpWord.stdout, /--expires-in <duration>/);
  });
});
