import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTempDatabase, hasStackTrace, parseJsonObject, runModelport, type CliRun } from './run-modelport.js';

const OWNER = 'owner@example.com';

function assertExit(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

describe('modelport embedding models and routers', () => {
  const database = createTempDatabase();
  const cli = (...args: string[]) => runModelport(database.url, args);

  before(async () => {
    assertExit(await cli('user', 'create', '--email', OWNER, '--password', 'correct horse battery'), 0);
  });
  after(() => database.remove());

  it('models list --kind embedding shows dimensions and input prices', async () => {
    const table = await runModelport('/nonexistent-dir/never-opened.db', ['models', 'list', '--kind', 'embedding']);
    assertExit(table, 0);
    assert.match(table.stdout, /^ID\s+NAME\s+INPUT \$\/1M\s+OUTPUT \$\/1M\s+CONTEXT\s+KIND\s+DIMENSIONS/);
    assert.match(table.stdout, /^openai:text-embedding-3-small\s.*\s0\.02\s+-\s+8191\s+embedding\s+1536 \(shortenable\)/m);
    assert.match(table.stdout, /^bedrock:amazon\.titan-embed-text-v2:0\s.*1024 \(or 512, 256\)/m);
    assert.ok(!/^sim:small\s/m.test(table.stdout), 'chat models are left out');

    const json = await runModelport('/nonexistent-dir/never-opened.db', ['models', 'list', '--kind', 'embedding', '--json']);
    const models = parseJsonObject(json.stdout).models as Array<{ id: string; kind: string; outputPerMTok: number; embedding: { dimensions: number; space: string } }>;
    const large = models.find((model) => model.id === 'azure:text-embedding-3-large');
    assert.deepEqual([large?.kind, large?.outputPerMTok, large?.embedding.dimensions, large?.embedding.space], ['embedding', 0, 3072, 'openai/text-embedding-3-large']);
    assert.ok(models.every((model) => model.kind === 'embedding'));
    // The real executable's exit code for a value it refuses.
    assertExit(await runModelport('/nonexistent-dir/never-opened.db', ['models', 'list', '--kind', 'vectors'], { process: true }), 1);
  });

  it('creates an embedding router over deployments of one model, and lists its kind', async () => {
    const run = await cli('router', 'create', '--owner', OWNER, '--name', 'vectors', '--models', 'openai:text-embedding-3-small,azure:text-embedding-3-small', '--strategy', 'latency_optimized');
    assertExit(run, 0);
    assert.match(run.stdout, /^rt_[0-9A-Za-z]{22}\n$/);
    assert.match(run.stderr, /^Created embedding router "vectors" for owner@example\.com: latency_optimized over/m);
    const id = run.stdout.trim();
    const chat = await cli('router', 'create', '--owner', OWNER, '--name', 'chat', '--models', 'sim:small', '--strategy', 'cost_optimized', '--json');
    assert.equal((parseJsonObject(chat.stdout).router as { kind: string }).kind, 'chat');

    const listed = parseJsonObject((await cli('router', 'list', '--owner', OWNER, '--json')).stdout).routers as Array<{ id: string; kind: string }>;
    assert.equal(listed.find((router) => router.id === id)?.kind, 'embedding');
    const table = await cli('router', 'list');
    assert.match(table.stdout, new RegExp(`^${id}\\s+vectors\\s+embedding\\s+${OWNER}`, 'm'));
  });

  it('refuses, with the reason, a router mixing kinds or vector spaces, and auto for embeddings', async () => {
    const mixed = await cli('router', 'create', '--owner', OWNER, '--name', 'x', '--models', 'sim:small,sim:embed-small', '--strategy', 'cost_optimized', '--json');
    assertExit(mixed, 1);
    const error = parseJsonObject(mixed.stdout).error as { message: string; code: string };
    assert.match(error.message, /^A router serves either chat or embeddings, not both: sim:small is a chat model and sim:embed-small an embedding model\./);

    const spaces = await cli('router', 'create', '--owner', OWNER, '--name', 'x', '--models', 'openai:text-embedding-3-small,gemini:gemini-embedding-001', '--strategy', 'cost_optimized');
    assertExit(spaces, 1);
    assert.match(spaces.stderr, /Vectors from different models are not comparable: a router may fall back only between deployments of the same model\./);
    assert.ok(!hasStackTrace(spaces.stderr));

    const auto = await cli('router', 'create', '--owner', OWNER, '--name', 'x', '--models', 'sim:embed-small', '--strategy', 'auto');
    assertExit(auto, 1);
    assert.match(auto.stderr, /The auto strategy predicts the quality of chat answers/);
  });

  it('model add declares an owner\'s embedding model that a router of its space may list', async () => {
    const added = await cli('model', 'add', '--owner', OWNER, '--id', 'ollama:my-nomic', '--kind', 'embedding', '--dimensions', '768', '--space', 'nomic/nomic-embed-text-v1.5', '--input-price', '0');
    assertExit(added, 0);
    assert.match(added.stdout, /^Added embedding model ollama:my-nomic \(768 dimensions, space nomic\/nomic-embed-text-v1\.5\) for owner@example\.com: \$0 per million input tokens\.\n$/);
    const router = await cli('router', 'create', '--owner', OWNER, '--name', 'local', '--models', 'ollama:nomic-embed-text,ollama:my-nomic', '--strategy', 'cost_optimized');
    assertExit(router, 0);
    const chat = await cli('model', 'add', '--owner', OWNER, '--id', 'ollama:my-chat', '--input-price', '0');
    assertExit(chat, 1);
    assert.match(chat.stderr, /A chat model needs --output-price/);
  });
});
