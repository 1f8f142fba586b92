import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as undici from 'undici';
import { Agent, buildConnector, errors, request } from './undici-parts.js';

test("each part is undici's own (the same object its index exports)", () => {
  assert.equal(Agent, undici.Agent);
  assert.equal(errors, undici.errors);
  assert.equal(buildConnector, undici.buildConnector);
});

test("request(dispatcher, { origin, path, … }) answers as undici's request(url, { dispatcher, … }) does", async () => {
  const server = createServer((incoming, outgoing) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk: string) => (body += chunk));
    incoming.on('end', () => {
      outgoing.writeHead(201, { 'content-type': 'application/json', 'x-seen': `${incoming.method} ${incoming.url}` });
      outgoing.end(JSON.stringify({ body, authorization: incoming.headers.authorization }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dispatcher = new Agent();
  try {
    const options = { method: 'POST' as const, headers: { authorization: 'Bearer sk-test' }, body: '{"a":1}' };
    const ours = await request(dispatcher, { origin, path: '/v1/chat/completions?x=1', ...options });
    const theirs = await undici.request(`${origin}/v1/chat/completions?x=1`, { dispatcher, ...options });
    for (const answer of [ours, theirs]) {
      assert.equal(answer.statusCode, 201);
      assert.equal(answer.headers['x-seen'], 'POST /v1/chat/completions?x=1');
    }
    assert.deepEqual(await ours.body.json(), await theirs.body.json());
  } finally {
    await dispatcher.close();
    server.close();
  }
});

test("the gateway's modules never load undici's index (fetch, WebSocket, its caches and mocks)", () => {
  const serve = new URL('../../../dist/serve.js', import.meta.url).href;
  const script = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(serve)});
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/node_modules/undici/'));
    process.stdout.write(JSON.stringify(loaded));
  `;
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const loaded = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' })) as string[];
  // The parts are there (the control: the measure sees undici's modules), its index and fetch are not.
  assert.ok(loaded.some((file) => file.endsWith('/undici/lib/dispatcher/agent.js')), loaded.join('\n'));
  assert.equal(loaded.find((file) => file.endsWith('/undici/index.js')), undefined);
  assert.equal(loaded.find((file) => file.includes('/undici/lib/web/')), undefined);
});
