import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createGatewayDatabase, type TestDatabase } from '../support/databases.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

const MiB = 1024 * 1024;
/** The probe's bodies: 9.9 MiB, just under the server-wide 10 MiB limit that applied to sign-in before. */
const BIG_BODY = Buffer.from(JSON.stringify({ email: 'big@example.com', password: 'a'.repeat(Math.floor(9.9 * MiB)) }));
const ATTEMPTS_PER_IP = 50;
const PEAK_RISE_BOUND_MIB = 120;
const PEAK_BOUND_MIB = 320;

/** The gateway's memory from /proc: current and peak resident set, in MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** Starts the peak (VmHWM) over from the current RSS (Linux: `echo 5 > /proc/<pid>/clear_refs`). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly json: { error: { code: string; message: string } };
}

/**
 * One request on its own keep-alive connection (as browsers and undici send), its body written at once however
 * early the answer comes; resolves with the first complete answer.
 */
function post(gateway: GatewayProcess, path: string, ip: string, body: Buffer | string, headers: ReadonlyArray<readonly [string, string]> = []): Promise<Answer> {
  const framing: ReadonlyArray<readonly [string, string]> = headers.some(([name]) => name === 'Transfer-Encoding') ? [] : [['Content-Length', String(Buffer.byteLength(body))]];
  const head = [`POST /api/dashboard/auth/${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', `X-Forwarded-For: ${ip}`, ...[...framing, ...headers].map(([name, value]) => `${name}: ${value}`)];
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: gateway.port });
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within 60 s; received ${received.toString('latin1').slice(0, 200)}`)), 60_000);
    socket.on('connect', () => {
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      socket.write(body);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = received.subarray(0, end).toString('latin1').split('\r\n');
      const fields = Object.fromEntries(lines.slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const length = Number(fields['content-length']);
      if (received.length - end - 4 < length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(lines[0]?.split(' ')[1]), headers: fields, json: JSON.parse(received.subarray(end + 4, end + 4 + length).toString('utf8')) as Answer['json'] });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function chunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += 64 * 1024) {
    const part = body.subarray(offset, offset + 64 * 1024);
    parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

function assertBounded(before: { rss: number }, after: { peak: number }): void {
  assert.ok(after.peak - before.rss < PEAK_RISE_BOUND_MIB, `peak ${after.peak.toFixed(0)} MiB from ${before.rss.toFixed(0)} MiB`);
  assert.ok(after.peak < PEAK_BOUND_MIB, `peak ${after.peak.toFixed(0)} MiB`);
}

function statusCounts(responses: readonly Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/**
 * The probe's two memory findings against a real gateway process, measured from /proc (not timed). Before, 40
 * concurrent 9.9 MiB sign-ins took RSS from 235 to 649 MiB (each body was read and parsed, even for a throttled IP),
 * and 20 parallel wrong sign-ins from 129 to 642 MiB (a 128 MiB scrypt hash on each of libuv's four threads).
 * The bounds: a phase may raise the peak by what two 32 MiB hashes hold plus about as much again for everything
 * else (the body phases stay far below it), and the process stays well inside a 512 MiB container.
 */
describe('work before authentication is bounded (real gateway process)', () => {
  let database: TestDatabase;
  let gateway: GatewayProcess;
  let pid: number;

  before(async () => {
    database = await createGatewayDatabase();
    gateway = await startGatewayProcess({
      DATABASE_URL: database.url,
      MODELPORT_SIGNUP: 'open',
      MODELPORT_TRUSTED_PROXIES: '127.0.0.1',
      MODELPORT_LOGIN_ATTEMPTS_PER_IP: String(ATTEMPTS_PER_IP),
      MODELPORT_PASSWORD_HASH_CONCURRENCY: '2',
      MODELPORT_PASSWORD_HASH_QUEUE: '16',
      ...(database.dialect === 'postgres' ? { MODELPORT_SECRET_KEY: 'test-secret-key-for-the-postgres-pass-0123456789' } : {}),
    });
    pid = gateway.child.pid ?? assert.fail('no pid');
    // Warm up every path the phases use (JIT, the database pool, scrypt's thread pool) so the peaks measure them only.
    for (let index = 0; index < 3; index += 1) {
      await post(gateway, 'signin', '192.0.2.250', JSON.stringify({ email: `warm${index}@example.com`, password: 'not the password' }));
      await post(gateway, 'signin', '192.0.2.250', Buffer.alloc(32 * 1024, 'a'));
    }
  });

  after(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  it('a throttled IP is answered 429 before its body is read: 40 concurrent 9.9 MiB sign-ins and sign-ups', async (t) => {
    const throttled = '192.0.2.1';
    for (let index = 0; index < ATTEMPTS_PER_IP; index += 1) assert.equal((await post(gateway, 'signin', throttled, '{}')).status, 400);
    resetPeak(pid);
    const before = memoryOf(pid);
    const responses = await Promise.all(Array.from({ length: 40 }, (_, index) => post(gateway, index % 2 === 0 ? 'signin' : 'signup', throttled, BIG_BODY)));
    const after = memoryOf(pid);
    assert.deepEqual(statusCounts(responses), { 429: 40 });
    assert.ok(responses.every((response) => response.json.error.code === 'too_many_attempts' && Number(response.headers['retry-after']) > 0));
    t.diagnostic(`RSS ${before.rss.toFixed(0)} MiB before, peak ${after.peak.toFixed(0)} MiB, ${after.rss.toFixed(0)} MiB after`);
    assertBounded(before, after);
  });

  it('an IP under its limit gets 413 once the body passes the account limit, declared or chunked', async (t) => {
    resetPeak(pid);
    const before = memoryOf(pid);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        index % 4 === 3
          ? post(gateway, 'signin', '192.0.2.2', chunked(BIG_BODY), [['Transfer-Encoding', 'chunked']])
          : post(gateway, index % 2 === 0 ? 'signin' : 'signup', '192.0.2.2', BIG_BODY),
      ),
    );
    const after = memoryOf(pid);
    assert.deepEqual(statusCounts(responses), { 413: 40 });
    for (const response of responses) {
      const { error } = response.json;
      assert.equal(error.code, 'request_too_large');
      assert.match(error.message, /16384 bytes/);
    }
    t.diagnostic(`RSS ${before.rss.toFixed(0)} MiB before, peak ${after.peak.toFixed(0)} MiB, ${after.rss.toFixed(0)} MiB after`);
    assertBounded(before, after);
  });

  it('20 parallel wrong sign-ins hash at most two at a time: 401, or 503 auth_busy past the queue', async (t) => {
    resetPeak(pid);
    const before = memoryOf(pid);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => post(gateway, 'signin', '192.0.2.3', JSON.stringify({ email: `nobody${index}@example.com`, password: 'a wrong password' }))),
    );
    const after = memoryOf(pid);
    const counts = statusCounts(responses);
    assert.deepEqual(Object.keys(counts).filter((status) => status !== '401' && status !== '503'), [], JSON.stringify(counts));
    // Two hashing and sixteen waiting are always answered; what arrives after the queue filled is refused.
    assert.ok((counts[401] ?? 0) >= 18, JSON.stringify(counts));
    for (const response of responses.filter(({ status }) => status === 503)) {
      assert.equal(response.json.error.code, 'auth_busy');
      assert.equal(response.headers['retry-after'], '1');
    }
    t.diagnostic(`RSS ${before.rss.toFixed(0)} MiB before, peak ${after.peak.toFixed(0)} MiB, ${after.rss.toFixed(0)} MiB after`);
    assertBounded(before, after);
  });
});
