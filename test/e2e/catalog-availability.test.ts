import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { CatalogModelView } from '../../src/dashboard/dashboard-api-types.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * The dashboard's catalog says a model is available only when it can be called: its provider configured and, for a
 * local model server, the server answering; otherwise it says what would make it available. The demo's `sim:*`
 * models come first.
 */

const OWNER_PASSWORD = 'correct horse battery';

/** A stand-in for Ollama's OpenAI-compatible model list, on a loopback port that can be closed and opened again. */
function modelListServer(): Server {
  return createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'llama3.1', object: 'model' }] }));
      return;
    }
    response.writeHead(404).end();
  });
}

async function listen(server: Server, port: number): Promise<number> {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  const closed = once(server, 'close');
  server.close();
  // The gateway's pool keeps connections alive: without this the server would stay open for them.
  server.closeAllConnections();
  await closed;
}

describe('dashboard catalog: a truthful "available"', () => {
  let gateway: Gateway;
  let client: DashboardClient;
  let ollama: Server;
  let ollamaPort: number;

  const catalog = async (): Promise<CatalogModelView[]> => {
    const answer = await client.get<{ models: CatalogModelView[] }>(`/api/dashboard/catalog?workspace=${client.userId}`);
    assert.equal(answer.status, 200);
    return answer.body.models;
  };
  const entry = async (id: string): Promise<CatalogModelView> => {
    const found = (await catalog()).find((model) => model.id === id);
    assert.ok(found, `${id} is in the catalog`);
    return found;
  };

  before(async () => {
    // A port nothing listens on once this server is closed: the local server starts out down.
    ollama = modelListServer();
    ollamaPort = await listen(ollama, 0);
    await close(ollama);
    gateway = await startGateway({ env: { OLLAMA_BASE_URL: `http://127.0.0.1:${ollamaPort}/v1`, MODELPORT_LOCAL_PROVIDERS: 'all' } });
    client = new DashboardClient(gateway.origin);
    assert.equal((await client.signIn(gateway.ownerEmail, OWNER_PASSWORD)).status, 200);
  });
  after(async () => {
    await gateway?.close();
    if (ollama.listening) await close(ollama);
  });

  it('an unconfigured provider is unavailable, and its reason names the variable that would configure it', async () => {
    const openai = (await catalog()).find((model) => model.provider === 'openai');
    assert.ok(openai, 'the catalog lists OpenAI models');
    assert.equal(openai.available, false);
    assert.match(openai.unavailableReason ?? '', /OPENAI_API_KEY/);
    assert.match(openai.unavailableReason ?? '', /your own OpenAI key/);

    const vllm = (await catalog()).find((model) => model.provider === 'vllm');
    assert.ok(vllm, 'the catalog lists vLLM models');
    assert.equal(vllm.available, false);
    assert.match(vllm.unavailableReason ?? '', /VLLM_BASE_URL/);

    const bedrock = (await catalog()).find((model) => model.provider === 'bedrock');
    assert.ok(bedrock, 'the catalog lists Bedrock models');
    assert.match(bedrock.unavailableReason ?? '', /AWS_ACCESS_KEY_ID/);
  });

  it('the simulator is available, with no reason, and comes first; every available model before every unavailable one', async () => {
    const models = await catalog();
    assert.equal(models[0]?.provider, 'sim');
    const small = models.find((model) => model.id === 'sim:small');
    assert.equal(small?.available, true);
    assert.equal(small?.unavailableReason, undefined);
    const lastSim = models.findLastIndex((model) => model.provider === 'sim');
    const firstOther = models.findIndex((model) => model.provider !== 'sim');
    assert.ok(lastSim < firstOther, `every sim model (last at ${lastSim}) before any other (first at ${firstOther})`);
    const usable = (model: CatalogModelView) => model.available && !model.retired;
    const firstUnusable = models.findIndex((model) => !usable(model));
    assert.ok(firstUnusable > 0, 'some models are unavailable');
    assert.ok(models.slice(firstUnusable).every((model) => !usable(model)), 'no available model after an unavailable one');
  });

  it('a configured local server is unavailable while down, available once it answers, and unavailable again when it stops', async () => {
    const address = `http://127.0.0.1:${ollamaPort}/v1`;
    await gateway.app.localServers.runOnce();
    const down = await entry('ollama:llama3.1');
    assert.equal(down.available, false);
    assert.match(down.unavailableReason ?? '', new RegExp(`Not answering at ${address.replace(/[.]/g, '\\.')}`));
    assert.match(down.unavailableReason ?? '', /OLLAMA_BASE_URL/);

    await listen(ollama, ollamaPort);
    await gateway.app.localServers.runOnce();
    const up = await entry('ollama:llama3.1');
    assert.equal(up.available, true);
    assert.equal(up.unavailableReason, undefined);
    const models = await catalog();
    assert.ok(
      models.findIndex((model) => model.id === 'ollama:llama3.1') < models.findIndex((model) => !model.available),
      'once up, it sorts among the available models',
    );

    await close(ollama);
    await gateway.app.localServers.runOnce();
    const downAgain = await entry('ollama:llama3.1');
    assert.equal(downAgain.available, false);
    assert.match(downAgain.unavailableReason ?? '', /Not answering/);
  });
});
