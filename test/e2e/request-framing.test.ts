import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { assertError, rawExchange, type RawExchange } from '../support/raw-http.js';

/**
 * Requests Node's HTTP layer judges before any route: each is answered in the JSON error shape and the
 * connection closed, or (when no answer is possible) closed promptly. Raw sockets, since no HTTP client
 * sends these.
 */

const malformed = { status: 400, type: 'invalid_request_error', code: 'malformed_http_request' } as const;

/** Short enough that 2,000 of them stay under Node's 16 KiB header limit, as in the original probe. */
function junkHeaders(count: number): string {
  return 'a:b\r\n'.repeat(count);
}

function answered(exchange: RawExchange) {
  assert.ok(exchange.response !== undefined, 'the server closed the connection without an answer');
  return exchange.response;
}

describe('requests refused by the HTTP layer, in the error shape', () => {
  let gateway: Gateway;
  const send = (bytes: string, timeoutMs?: number) => rawExchange(gateway.origin, bytes, timeoutMs);

  before(async () => {
    gateway = await startGateway();
  });
  after(async () => {
    await gateway.close();
  });

  it('no Host header on HTTP/1.1: 400 in the error shape, not an empty answer', async () => {
    for (const path of ['/healthz', '/api/router/models', '/api/dashboard/session']) {
      const exchange = await send(`GET ${path} HTTP/1.1\r\nAuthorization: Bearer ${gateway.apiKey}\r\n\r\n`);
      const response = answered(exchange);
      assertError(response, { ...malformed, messageIncludes: ['no Host header'] });
      assert.equal(response.headers.connection, 'close');
    }
    // HTTP/1.0 has no Host requirement.
    assert.equal(answered(await send('GET /healthz HTTP/1.0\r\n\r\n')).status, 200);
  });

  it('two Host headers, in any case: 400, never the first one taken', async () => {
    for (const hosts of [['Host', 'Host'], ['Host', 'host'], ['host', 'HOST']]) {
      const bytes = `GET /api/router/models HTTP/1.1\r\n${hosts[0]}: gateway.example\r\nAuthorization: Bearer ${gateway.apiKey}\r\n${hosts[1]}: attacker.example\r\n\r\n`;
      assertError(answered(await send(bytes)), { ...malformed, messageIncludes: ['more than one Host'] });
    }
  });

  it('a Host after 2,000 headers: 431, not an empty 400 (Node would have dropped the headers past its limit)', async () => {
    const response = answered(await send(`GET /healthz HTTP/1.1\r\n${junkHeaders(2000)}Host: gateway.example\r\n\r\n`));
    assertError(response, { status: 431, type: 'invalid_request_error', code: 'request_headers_too_large', messageIncludes: ['1000 headers'] });
    // Host first, then more headers than the server reads: the same, since any header past the limit (a key, a
    // forwarded address) would be lost.
    assertError(answered(await send(`GET /healthz HTTP/1.1\r\nHost: gateway.example\r\n${junkHeaders(1000)}\r\n`)), {
      status: 431,
      type: 'invalid_request_error',
      code: 'request_headers_too_large',
    });
    // At the limit, the request is read whole.
    assert.equal(answered(await send(`GET /healthz HTTP/1.1\r\nHost: gateway.example\r\n${junkHeaders(998)}Connection: close\r\n\r\n`)).status, 200);
  });

  it('a request line without a path or without a version: answered at once, never left to wait', async () => {
    for (const line of ['GET HTTP/1.1', 'GET  HTTP/1.1', 'GET', 'GET /healthz']) {
      const exchange = await send(`${line}\r\nHost: gateway.example\r\n\r\n`, 2000);
      assertError(answered(exchange), malformed);
      assert.ok(exchange.closedAfterMs < 1000, `${line}: closed after ${exchange.closedAfterMs} ms`);
    }
  });

  it('CONNECT: 405 in the error shape (Node would close the connection without a word)', async () => {
    const response = answered(await send('CONNECT internal.example:443 HTTP/1.1\r\nHost: internal.example:443\r\n\r\n'));
    assertError(response, { status: 405, type: 'invalid_request_error', code: 'method_not_allowed', messageIncludes: ['CONNECT'] });
  });

  it('a request whose headers never end is let go after the headers timeout (10 s by default), with a 408', async () => {
    assert.equal(gateway.app.server.server.headersTimeout, 10_000);
    // A request line without a version is HTTP/0.9 to Node's parser, which then waits for headers that never come.
    gateway.app.server.server.headersTimeout = 300;
    try {
      for (const bytes of ['GET /healthz\r\n', 'GET /healthz HTTP/1.1\r\nHost: gateway.example\r\n']) {
        const exchange = await send(bytes, 6000);
        assertError(answered(exchange), { status: 408, type: 'invalid_request_error', code: 'request_timeout' });
        // The timeout plus one check interval (a quarter of the default headers timeout), with margin.
        assert.ok(exchange.closedAfterMs < 300 + 2500 + 1500, `closed after ${exchange.closedAfterMs} ms`);
      }
    } finally {
      gateway.app.server.server.headersTimeout = 10_000;
    }
  });
});
