import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { DashboardClient } from '../support/dashboard-client.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * The operator's local model servers (Ollama, vLLM…) are not every account's: with no configuration the local
 * presets are neither offered nor called; with OLLAMA_BASE_URL set, only the owners MODELPORT_LOCAL_PROVIDERS names
 * get them.
 */

const OWNER_PASSWORD = 'correct horse battery';
const OTHER_PASSWORD = 'a local upstream test passphrase';
const hello = [{ role: 'user', content: 'Hello' }];

async function chat(gateway: Gateway, key: string, router: string): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: router, messages: hello }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

/** The dashboard's catalog entry of a model, as the owner signed in sees it in their personal workspace. */
async function catalogEntry(gateway: Gateway, email: string, password: string, modelId: string): Promise<{ available: boolean } | undefined> {
  const client = new DashboardClient(gateway.origin);
  const signedIn = await client.signIn(email, password);
  assert.equal(signedIn.status, 200, `sign-in of ${email}`);
  const catalog = await client.get(`/api/dashboard/catalog?workspace=${client.userId}`);
  assert.equal(catalog.status, 200);
  return catalog.body.models.find((model: { id: string }) => model.id === modelId);
}

/** Listens where Ollama does; undefined when something already does (a real Ollama on this machine). */
async function listenAsOllama(requests: string[]): Promise<Server | undefined> {
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    // A status and a marker the gateway must not pass on: a tenant learns nothing of what answers here.
    response.writeHead(418, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 'local-listener-marker' }));
  });
  server.listen(11434, '127.0.0.1');
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))]);
    return server;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined;
    throw error;
  }
}

describe('local model servers belong to the operator', () => {
  describe('no operator configuration: the original finding', () => {
    const requests: string[] = [];
    let listener: Server | undefined;
    let gateway: Gateway;

    before(async () => {
      listener = await listenAsOllama(requests);
      gateway = await startGateway({ models: ['ollama:llama3.1'] });
    });
    after(async () => {
      await gateway.close();
      listener?.closeAllConnections();
      if (listener !== undefined) await new Promise<void>((resolve) => listener?.close(() => resolve()));
    });

    it('a router over ollama:llama3.1 sends nothing to 127.0.0.1:11434 and says the provider is not configured', async (context) => {
      if (listener === undefined) return context.skip('127.0.0.1:11434 is taken on this machine (a real Ollama?)');
      const answer = await chat(gateway, gateway.apiKey, gateway.router.id);
      assert.deepEqual(requests, [], 'no request reached the listener');
      assert.equal(answer.status, 503);
      assert.equal(answer.body.error.code, 'all_models_unavailable');
      assert.match(answer.body.error.message, /provider "ollama" is not configured/);
      assert.doesNotMatch(answer.text, /418|local-listener-marker|11434/, "nothing of the listener's answer or address");
    });

    it('the dashboard catalog does not offer the local models', async () => {
      assert.equal((await catalogEntry(gateway, gateway.ownerEmail, OWNER_PASSWORD, 'ollama:llama3.1'))?.available, false);
      assert.equal((await catalogEntry(gateway, gateway.ownerEmail, OWNER_PASSWORD, 'sim:small'))?.available, true, 'the offline simulator stays');
    });
  });

  describe('OLLAMA_BASE_URL set, for one named owner', () => {
    let ollama: FakeOpenAI;
    let gateway: Gateway;
    let other: { email: string; router: string; key: string };

    before(async () => {
      ollama = await startFakeOpenAI({ apiKey: null });
      gateway = await startGateway({
        models: ['ollama:llama3.1'],
        env: { OLLAMA_BASE_URL: ollama.baseUrl, MODELPORT_LOCAL_PROVIDERS: 'owner@example.com' },
      });
      const email = 'other@example.com';
      await gateway.admin.createUser(email, OTHER_PASSWORD);
      const router = await gateway.admin.createRouter({ ownerEmail: email, name: 'local', models: ['ollama:llama3.1'], strategy: 'cost_optimized' });
      const { value } = await gateway.admin.createKey({ ownerEmail: email, name: 'other key' });
      other = { email, router: router.id, key: value };
    });
    after(async () => {
      await gateway.close();
      await ollama.close();
    });

    it('calls the local server for the owner the operator named', async () => {
      const answer = await chat(gateway, gateway.apiKey, gateway.router.id);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.model, 'ollama:llama3.1');
      assert.equal(ollama.chatRequests().length, 1);
      assert.equal((await catalogEntry(gateway, gateway.ownerEmail, OWNER_PASSWORD, 'ollama:llama3.1'))?.available, true);
    });

    it('neither offers nor calls it for another owner', async () => {
      const before = ollama.requests.length;
      const answer = await chat(gateway, other.key, other.router);
      assert.equal(answer.status, 503);
      assert.match(answer.body.error.message, /provider "ollama" is not configured/);
      assert.equal(ollama.requests.length, before, 'no request reached the local server');
      assert.equal((await catalogEntry(gateway, other.email, OTHER_PASSWORD, 'ollama:llama3.1'))?.available, false);
    });
  });
});
