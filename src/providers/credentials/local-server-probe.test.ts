import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createUpstreamDispatcher, defaultTimeouts, type UpstreamHttp } from '../transport/http-client.js';
import { createLocalServerProbe } from './local-server-probe.js';
import type { ProviderCredentials } from './provider-presets.js';

/** What the loopback server answers to `GET /v1/models`: a status, or nothing at all (it holds the request). */
type Answer = number | 'hang';

describe('local server probe', () => {
  let server: Server;
  let base = '';
  let answer: Answer = 200;
  const seen: string[] = [];
  let http: UpstreamHttp;

  before(async () => {
    server = createServer((request, response) => {
      seen.push(`${request.method} ${request.url} ${request.headers.authorization ?? '-'}`);
      if (answer === 'hang') return;
      response.writeHead(answer, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [] }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    http = { dispatcher: createUpstreamDispatcher(defaultTimeouts), timeouts: defaultTimeouts };
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await http.dispatcher.close();
  });

  const probeOf = (credentials: ReadonlyMap<string, ProviderCredentials>, timeoutMs = 1000) => createLocalServerProbe({ credentials, http, intervalMs: 0, timeoutMs });

  it('checks only the configured local servers, with their key, and knows which providers the environment configured', async () => {
    answer = 200;
    seen.length = 0;
    const probe = probeOf(
      new Map<string, ProviderCredentials>([
        ['ollama', { baseUrl: base, apiKey: 'local-key' }],
        ['openai', { baseUrl: base, apiKey: 'sk-test' }],
      ]),
    );
    await probe.runOnce();
    // The check the probe starts with, then this one: each of the local server only.
    assert.deepEqual(seen, ['GET /v1/models Bearer local-key', 'GET /v1/models Bearer local-key']);
    assert.equal(probe.state('ollama')?.kind, 'up');
    assert.equal(probe.state('openai'), undefined, 'a cloud provider is not checked');
    assert.equal(probe.state('vllm'), undefined, 'an unconfigured local server is not checked');
    assert.equal(probe.configured('openai'), true);
    assert.equal(probe.configured('sim'), true);
    assert.equal(probe.configured('vllm'), false);
    await probe.stop();
  });

  it('counts a 4xx as running and a 5xx as down', async () => {
    const probe = probeOf(new Map([['vllm', { baseUrl: base }]]));
    answer = 404;
    await probe.runOnce();
    assert.equal(probe.state('vllm')?.kind, 'up', 'a 404 on the model list still comes from a running server');
    answer = 503;
    await probe.runOnce();
    const state = probe.state('vllm');
    assert.equal(state?.kind, 'down');
    assert.match(state?.kind === 'down' ? state.message : '', /503/);
    await probe.stop();
  });

  it('counts a server that does not answer within the timeout as down', async () => {
    answer = 'hang';
    const probe = probeOf(new Map([['lmstudio', { baseUrl: base }]]), 50);
    await probe.runOnce();
    assert.equal(probe.state('lmstudio')?.kind, 'down');
    await probe.stop();
  });

  it('counts a refused connection as down, with the address it tried', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const probe = probeOf(new Map([['llamacpp', { baseUrl: `http://127.0.0.1:${port}/v1` }]]));
    assert.equal(probe.state('llamacpp')?.kind, 'unchecked', 'before its first check');
    await probe.runOnce();
    const state = probe.state('llamacpp');
    assert.equal(state?.kind, 'down');
    assert.equal(state?.baseUrl, `http://127.0.0.1:${port}/v1`);
    await probe.stop();
  });
});
