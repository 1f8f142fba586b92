import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { request } from 'undici';
import { defaultTimeouts } from '../transport/http-client.js';
import { BLOCKED_ADDRESS_CODE, UpstreamUrlError, checkUpstreamBaseUrl, createGuardedDispatcher, createGuardedLookup, parseUpstreamBaseUrl } from './ssrf-guard.js';

/** A resolver answering from a fixed table, as DNS would (no network in tests). */
function table(entries: Record<string, readonly string[]>) {
  return async (hostname: string): Promise<LookupAddress[]> => {
    const addresses = entries[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

/** The same table as a socket lookup function (what net.connect calls). */
function socketLookup(entries: Record<string, readonly string[]>, calls: string[] = []): LookupFunction {
  const resolve = table(entries);
  return (hostname: string, _options: LookupOptions, callback) => {
    calls.push(hostname);
    resolve(hostname).then(
      (addresses) => callback(null, addresses),
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

const DNS = {
  'api.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.0.0.12'],
  'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:192.168.0.10'],
};

describe('SSRF guard: save-time check of owner base URLs', () => {
  const strict = { allowPrivate: false, resolve: table(DNS) };

  it('accepts public hosts and normalises the URL', async () => {
    assert.equal(await checkUpstreamBaseUrl('https://api.example.com/v1/', strict), 'https://api.example.com/v1');
    assert.equal(await checkUpstreamBaseUrl(' https://API.example.com/openai/v1 ', strict), 'https://api.example.com/openai/v1');
    assert.equal(await checkUpstreamBaseUrl('http://8.8.8.8:8080', strict), 'http://8.8.8.8:8080');
  });

  it('refuses loopback, private, link-local, CGNAT and mapped addresses, literal or resolved', async () => {
    const refused: ReadonlyArray<readonly [string, RegExp]> = [
      ['http://127.0.0.1:8000/v1', /127\.0\.0\.1 is a loopback address/],
      ['http://127.1/v1', /127\.0\.0\.1 is a loopback address/],
      ['http://0x7f000001/v1', /loopback/],
      ['http://[::1]:8000/v1', /::1 is a loopback address/],
      ['http://[::ffff:127.0.0.1]/v1', /loopback/],
      ['http://169.254.169.254/latest/meta-data', /link-local/],
      ['http://100.64.1.1/v1', /carrier-grade NAT/],
      ['http://0.0.0.0:8080/v1', /unspecified/],
      ['http://[fd00::1]/v1', /private-network/],
      ['https://internal.example.com/v1', /internal\.example\.com resolves to 10\.0\.0\.12, a private-network address/],
      ['https://mixed.example.com/v1', /resolves to 127\.0\.0\.1, a loopback address/],
      ['https://metadata.example.com/v1', /link-local/],
      ['https://mapped.example.com/v1', /private-network/],
    ];
    for (const [url, message] of refused) {
      await assert.rejects(checkUpstreamBaseUrl(url, strict), (error: unknown) => error instanceof UpstreamUrlError && message.test(error.message) && /MODELPORT_ALLOW_PRIVATE_UPSTREAMS=true/.test(error.message), url);
    }
  });

  it('refuses what is not an http(s) base URL, whatever the policy', async () => {
    for (const policy of [strict, { allowPrivate: true }]) {
      await assert.rejects(checkUpstreamBaseUrl('file:///etc/passwd', policy), /must be http:\/\/ or https:\/\//);
      await assert.rejects(checkUpstreamBaseUrl('gopher://api.example.com', policy), /must be http/);
      await assert.rejects(checkUpstreamBaseUrl('not a url', policy), /is not a URL/);
      await assert.rejects(checkUpstreamBaseUrl('https://user:pass@api.example.com/v1', policy), /must not carry credentials/);
      await assert.rejects(checkUpstreamBaseUrl('https://api.example.com/v1?x=1', policy), /query string or fragment/);
    }
    await assert.rejects(checkUpstreamBaseUrl('https://nowhere.example.com/v1', strict), /Could not resolve nowhere\.example\.com \(ENOTFOUND\)/);
  });

  it('lets the operator allow private upstreams', async () => {
    assert.equal(await checkUpstreamBaseUrl('http://127.0.0.1:11434/v1', { allowPrivate: true }), 'http://127.0.0.1:11434/v1');
    assert.equal(parseUpstreamBaseUrl('http://localhost:8000/v1/'), 'http://localhost:8000/v1');
  });
});

describe('SSRF guard: call-time check with the address pinned', () => {
  let server: Server;
  let port = 0;
  let connections = 0;

  before(async () => {
    server = createServer((_request, response) => response.end('{"ok":true}'));
    server.on('connection', () => {
      connections += 1;
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const blocked = (error: unknown) => error instanceof Error && 'code' in error && error.code === BLOCKED_ADDRESS_CODE;

  it('refuses a literal loopback address before connecting', async () => {
    const dispatcher = createGuardedDispatcher(defaultTimeouts);
    try {
      const before = connections;
      await assert.rejects(request(`http://127.0.0.1:${port}/v1/models`, { dispatcher }), blocked);
      await assert.rejects(request(`http://[::ffff:127.0.0.1]:${port}/v1/models`, { dispatcher }), blocked);
      assert.equal(connections, before, 'no connection was made');
    } finally {
      await dispatcher.close();
    }
  });

  it('refuses a name that now resolves to loopback (DNS rebinding after the save-time check)', async () => {
    const calls: string[] = [];
    const dispatcher = createGuardedDispatcher(defaultTimeouts, socketLookup({ 'rebind.example.com': ['127.0.0.1'] }, calls));
    try {
      const before = connections;
      await assert.rejects(request(`http://rebind.example.com:${port}/v1/models`, { dispatcher }), (error: unknown) => blocked(error) && /rebind\.example\.com resolves to 127\.0\.0\.1/.test((error as Error).message));
      assert.deepEqual(calls, ['rebind.example.com'], 'the dispatcher resolved the name itself');
      assert.equal(connections, before);
    } finally {
      await dispatcher.close();
    }
  });

  it('hands the socket exactly the addresses it checked', async () => {
    const lookup = createGuardedLookup(socketLookup(DNS));
    const answer = (hostname: string, options: LookupOptions) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family: number | undefined }>((resolve) =>
        lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
      );
    assert.deepEqual((await answer('api.example.com', { all: true })).address, [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    const single = await answer('api.example.com', {});
    assert.equal(single.address, '93.184.216.34');
    assert.equal(single.family, 4);
    const mixed = await answer('mixed.example.com', { all: true });
    assert.equal(mixed.error?.code, BLOCKED_ADDRESS_CODE, 'one private answer refuses the name');
    assert.equal((await answer('nowhere.example.com', {})).error?.code, 'ENOTFOUND');
  });
});
