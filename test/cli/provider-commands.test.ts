import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { createTempDatabase, hasStackTrace, parseJsonObject, runModelport, type CliRun } from './run-modelport.js';

const OWNER = 'owner@example.com';
const PASSWORD = 'correct horse battery';
const OPENAI_KEY = 'sk-proj-cli-owner-openai-9a8b';
const ACME_KEY = 'sk-cli-acme-key-4321';
const ALLOW = { MODELPORT_ALLOW_PRIVATE_UPSTREAMS: 'true' };

function assertExit(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  assert.ok(!hasStackTrace(run.stdout + run.stderr), 'no stack trace');
}

/** A minimal OpenAI-compatible `GET /v1/models`, recording the headers it got. */
async function startModelList(): Promise<{ baseUrl: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.headers);
    if (request.url !== '/v1/models' || request.headers.authorization !== `Bearer ${ACME_KEY}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key","code":"invalid_api_key"}}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"llama-local","object":"model"},{"id":"qwen","object":"model"}]}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('modelport provider and model commands on SQLite', () => {
  const database = createTempDatabase();
  const cli = (args: readonly string[], options: { input?: string; env?: Record<string, string>; process?: boolean } = {}) => runModelport(database.url, args, options);
  let fake: FakeOpenAI;
  let models: Awaited<ReturnType<typeof startModelList>>;

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    models = await startModelList();
    assertExit(await cli(['user', 'create', '--email', OWNER, '--password', PASSWORD]), 0);
  });
  after(async () => {
    await fake?.close();
    await models?.close();
    database.remove();
  });

  it('provider add stores a preset key sealed, in a secret file it creates beside the database, and never prints it', async () => {
    // The real executable: the key through its stdin pipe, the secret file made with its umask.
    const run = await cli(['provider', 'add', '--owner', OWNER, '--provider', 'openai', '--api-key-stdin', '--base-url', fake.baseUrl], { input: `${OPENAI_KEY}\n`, env: ALLOW, process: true });
    assertExit(run, 0);
    assert.match(run.stdout, /Added preset provider openai for owner@example\.com at http:\/\/127\.0\.0\.1:\d+\/v1 \(key …9a8b\)/);
    assert.ok(!run.stdout.includes(OPENAI_KEY) && !run.stderr.includes(OPENAI_KEY));

    const secretFile = join(database.directory, 'secret.key');
    if (process.platform !== 'win32') assert.equal(statSync(secretFile).mode & 0o777, 0o600);
    assert.ok(!readFileSync(secretFile, 'utf8').includes(OPENAI_KEY));
    const sqlite = new SqliteDatabase(database.url, { readonly: true });
    const row = sqlite.prepare('select * from provider_credentials where provider = ?').get('openai') as Record<string, unknown>;
    sqlite.close();
    assert.ok(!JSON.stringify(row).includes(OPENAI_KEY.slice(0, 10)));
    assert.match(String(row.encrypted_key), /^v1:/);
    assert.equal(row.key_hint, '9a8b');
  });

  it('provider add refuses private base URLs unless allowed, and a custom provider without --base-url', async () => {
    const refused = await cli(['provider', 'add', '--owner', OWNER, '--provider', 'acme', '--base-url', models.baseUrl, '--api-key', ACME_KEY]);
    assertExit(refused, 1);
    assert.match(refused.stderr, /error: Refused base URL: 127\.0\.0\.1 is a loopback address; .*MODELPORT_ALLOW_PRIVATE_UPSTREAMS=true/);
    const noUrl = await cli(['provider', 'add', '--owner', OWNER, '--provider', 'acme', '--api-key', ACME_KEY, '--json']);
    assertExit(noUrl, 1);
    assert.match((parseJsonObject(noUrl.stdout).error as { message: string }).message, /acme is not a preset .* give its --base-url/);
    const badName = await cli(['provider', 'add', '--owner', OWNER, '--provider', 'Acme:Corp', '--base-url', 'https://x.example', '--api-key', ACME_KEY]);
    assertExit(badName, 1);
    const both = await cli(['provider', 'add', '--owner', OWNER, '--provider', 'openai', '--api-key', 'a', '--api-key-stdin']);
    assertExit(both, 2);
    const noKey = await cli(['provider', 'add', '--owner', OWNER, '--provider', 'anthropic']);
    assertExit(noKey, 1);
    assert.match(noKey.stderr, /Anthropic needs an API key/);

    const added = await cli(['provider', 'add', '--owner', OWNER, '--provider', 'acme', '--base-url', models.baseUrl, '--api-key', ACME_KEY, '--json'], { env: ALLOW });
    assertExit(added, 0);
    assert.deepEqual((parseJsonObject(added.stdout).provider as { kind: string; keyHint: string }).kind, 'custom');
  });

  it('provider list shows hints, never keys', async () => {
    const table = await cli(['provider', 'list', '--owner', OWNER]);
    assertExit(table, 0);
    assert.match(table.stdout, /^PROVIDER\s+KIND\s+BASE URL\s+KEY\s+UPDATED\n/);
    assert.match(table.stdout, /acme\s+custom\s+http:\/\/127\.0\.0\.1:\d+\/v1\s+…4321/);
    assert.match(table.stdout, /openai\s+preset\s+http:\/\/127\.0\.0\.1:\d+\/v1\s+…9a8b/);
    const json = await cli(['provider', 'list', '--owner', OWNER, '--json']);
    assertExit(json, 0);
    for (const run of [table, json]) for (const key of [OPENAI_KEY, ACME_KEY]) assert.ok(!run.stdout.includes(key));
    const listed = parseJsonObject(json.stdout).providers as Array<{ provider: string; keyHint: string; hasKey: boolean }>;
    assert.deepEqual(listed.map((entry) => [entry.provider, entry.keyHint, entry.hasKey]), [['acme', '4321', true], ['openai', '9a8b', true]]);
  });

  it('provider test pings a model through the owner\'s key, or lists a custom provider\'s models', async () => {
    const ping = await cli(['provider', 'test', '--owner', OWNER, '--provider', 'openai', '--model', 'gpt-4o-mini'], { env: ALLOW });
    assertExit(ping, 0);
    assert.match(ping.stdout, /^ok: chat ping with openai:gpt-4o-mini answered .* in \d+ ms\.\n$/);
    const upstream = fake.chatRequests().at(-1);
    assert.equal(upstream?.headers.authorization, `Bearer ${OPENAI_KEY}`);
    assert.deepEqual(upstream?.body, { messages: [{ role: 'user', content: 'ping' }], max_tokens: 1, model: 'gpt-4o-mini', stream: false });

    // Without --model: the provider's cheapest chat model, never an embedding model (a chat ping cannot reach one).
    const defaulted = await cli(['provider', 'test', '--owner', OWNER, '--provider', 'openai'], { env: ALLOW });
    assertExit(defaulted, 0);
    const pinged = /chat ping with openai:(\S+) answered/.exec(defaulted.stdout)?.[1] ?? assert.fail(defaulted.stdout);
    assert.doesNotMatch(pinged, /embedding/);

    const list = await cli(['provider', 'test', '--owner', OWNER, '--provider', 'acme', '--json'], { env: ALLOW });
    assertExit(list, 0);
    const test = parseJsonObject(list.stdout).test as { ok: boolean; target: string; message: string; latencyMs: number };
    assert.equal(test.ok, true);
    assert.match(test.target, /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/models$/);
    assert.equal(test.message, 'lists 2 models');
    assert.equal(models.seen.at(-1)?.authorization, `Bearer ${ACME_KEY}`);

    // The stored base URL is private: without the operator's permission the test is refused before any call.
    const before = models.seen.length;
    const refused = await cli(['provider', 'test', '--owner', OWNER, '--provider', 'acme']);
    assertExit(refused, 1);
    assert.match(refused.stderr, /loopback/);
    assert.equal(models.seen.length, before);
  });

  it('provider test reports the upstream error with exit 1', async () => {
    const rotated = await cli(['provider', 'add', '--owner', OWNER, '--provider', 'openai', '--api-key', 'sk-wrong-key-000000000', '--base-url', fake.baseUrl], { env: ALLOW });
    assertExit(rotated, 0);
    assert.match(rotated.stdout, /^Replaced preset provider openai/);
    const failed = await cli(['provider', 'test', '--owner', OWNER, '--provider', 'openai', '--model', 'gpt-4o-mini'], { env: ALLOW, process: true });
    assertExit(failed, 1);
    assert.match(failed.stderr.replace(/^database: .*\n/, ''), /^error: chat ping with openai:gpt-4o-mini failed after \d+ ms: openai refused the gateway's credentials \(HTTP 401, invalid_api_key\)\n$/);
    const json = await cli(['provider', 'test', '--owner', OWNER, '--provider', 'openai', '--model', 'gpt-4o-mini', '--json'], { env: ALLOW });
    assertExit(json, 1);
    assert.deepEqual((parseJsonObject(json.stdout).test as { ok: boolean; statusCode: number }).statusCode, 401);
    assert.ok(!json.stdout.includes('sk-wrong-key'));
  });

  it('model add, list and remove; routers accept the owner\'s models', async () => {
    const added = await cli(['model', 'add', '--owner', OWNER, '--id', 'acme:llama-local', '--input-price', '0.59', '--output-price', '0.79', '--context-window', '131072', '--tools']);
    assertExit(added, 0);
    assert.match(added.stdout, /Added model acme:llama-local for owner@example\.com: \$0\.59 in \/ \$0\.79 out per million tokens/);
    const override = await cli(['model', 'add', '--owner', OWNER, '--id', 'openai:gpt-4o', '--input-price', '2', '--output-price', '8', '--json']);
    assertExit(override, 0);
    const body = parseJsonObject(override.stdout) as { model: { contextWindow: number; capabilities: { vision: boolean } }; overridesShipped: boolean };
    assert.equal(body.overridesShipped, true);
    assert.equal(body.model.contextWindow, 128000, 'a shipped model keeps its figures');
    assert.equal(body.model.capabilities.vision, true);

    for (const [args, message] of [
      [['--id', 'nocolon', '--input-price', '1', '--output-price', '1'], /not a model id/],
      [['--id', 'unknown:model', '--input-price', '1', '--output-price', '1'], /neither a preset provider nor a custom provider/],
      [['--id', 'acme:x', '--input-price', 'cheap', '--output-price', '1'], /--input-price must be a price/],
      [['--id', 'acme:x', '--input-price', '1', '--output-price', '1', '--context-window', '100', '--max-output', '200'], /--max-output must be a whole number from 1 to the context window \(100\)/],
      [['--id', 'sim:small', '--input-price', '1', '--output-price', '1'], /offline simulator/],
    ] as const) {
      const run = await cli(['model', 'add', '--owner', OWNER, ...args]);
      assertExit(run, 1);
      assert.match(run.stderr, message);
    }

    const list = await cli(['model', 'list', '--owner', OWNER, '--json']);
    assertExit(list, 0);
    assert.deepEqual((parseJsonObject(list.stdout).models as Array<{ id: string; inputPerMTok: number }>).map((model) => [model.id, model.inputPerMTok]), [['acme:llama-local', 0.59], ['openai:gpt-4o', 2]]);

    const router = await cli(['router', 'create', '--owner', OWNER, '--name', 'mine', '--models', 'acme:llama-local,openai:gpt-4o', '--strategy', 'cost_optimized']);
    assertExit(router, 0);
    const otherOwner = await cli(['user', 'create', '--email', 'other@example.com', '--password', PASSWORD]);
    assertExit(otherOwner, 0);
    const notTheirs = await cli(['router', 'create', '--owner', 'other@example.com', '--name', 'x', '--models', 'acme:llama-local', '--strategy', 'cost_optimized']);
    assertExit(notTheirs, 1);
    assert.match(notTheirs.stderr, /Unknown model\(s\): acme:llama-local/);

    assertExit(await cli(['model', 'remove', '--owner', OWNER, '--id', 'openai:gpt-4o']), 0);
    assertExit(await cli(['model', 'remove', '--owner', OWNER, '--id', 'openai:gpt-4o']), 1);
  });

  it('provider remove deletes the credentials, and a custom provider\'s models with them', async () => {
    const removed = await cli(['provider', 'remove', '--owner', OWNER, '--provider', 'acme']);
    assertExit(removed, 0);
    assert.equal(removed.stdout, 'Removed provider acme and its 1 model.\n');
    const list = await cli(['model', 'list', '--owner', OWNER]);
    assert.equal(list.stdout, '(no models declared)\n');
    const again = await cli(['provider', 'remove', '--owner', OWNER, '--provider', 'acme']);
    assertExit(again, 1);
    assert.match(again.stderr, /has no credentials for acme/);
  });

  it('lists the new commands in help', async () => {
    const help = await cli(['--help']);
    assertExit(help, 0);
    for (const command of ['provider add', 'provider list', 'provider test', 'provider remove', 'model add', 'model list', 'model remove']) assert.match(help.stdout, new RegExp(`\\n  ${command} `));
  });
});

describe('modelport provider add on Postgres', () => {
  let database: TestDatabase | undefined;

  before(async () => {
    database = await createPostgresDatabase();
    if (database === undefined) return;
    assertExit(await runModelport(database.url, ['user', 'create', '--email', OWNER, '--password', PASSWORD]), 0);
  });
  after(async () => {
    await database?.drop();
  });

  it('refuses to store a key without MODELPORT_SECRET_KEY, and stores it with one', async (t) => {
    if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
    const args = ['provider', 'add', '--owner', OWNER, '--provider', 'openai', '--api-key-stdin'];
    const refused = await runModelport(database.url, args, { input: OPENAI_KEY });
    assertExit(refused, 1);
    assert.match(refused.stderr, /Postgres database needs MODELPORT_SECRET_KEY/);
    const short = await runModelport(database.url, args, { input: OPENAI_KEY, env: { MODELPORT_SECRET_KEY: 'too-short' } });
    assertExit(short, 1);
    assert.match(short.stderr, /MODELPORT_SECRET_KEY: must have at least 32 characters/);
    assert.ok(!short.stderr.includes('too-short'), 'the secret is never printed');
    const stored = await runModelport(database.url, args, { input: OPENAI_KEY, env: { MODELPORT_SECRET_KEY: 's'.repeat(44) } });
    assertExit(stored, 0);
  });
});
