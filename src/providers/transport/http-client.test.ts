import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createUpstreamDispatcher, defaultTimeouts, postSerialized } from './http-client.js';

describe('upstream connections', () => {
  let server: Server;
  let origin: string;
  const sockets: Socket[] = [];
  before(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
      });
    });
    // Node's server then answers `Keep-Alive: timeout=120`.
    server.keepAliveTimeout = 120_000;
    server.on('connection', (socket: Socket) => sockets.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('closes an idle connection after its own keep-alive time, not the longer one the upstream offers', { timeout: 20_000 }, async () => {
    const dispatcher = createUpstreamDispatcher(defaultTimeouts, undefined, 200);
    try {
      const response = await postSerialized({ dispatcher, timeouts: defaultTimeouts }, 'test', `${origin}/v1/chat`, {}, '{"hello":"world"}', new AbortController().signal);
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['keep-alive']), /timeout=120/);
      assert.deepEqual(await response.body.json(), { ok: true });
      assert.equal(sockets.length, 1);
      const socket = sockets[0];
      assert.ok(socket !== undefined);
      // Without the cap undici keeps it open for the hint's 120 s (less its 1 s margin) and this times out.
      if (!socket.destroyed) await once(socket, 'close');
    } finally {
      await dispatcher.close();
    }
  });
});
