import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAdminService } from '../../src/admin/admin-service.js';
import { loadShippedCatalog } from '../../src/catalog/catalog.js';
import { migrateToLatest, openStorage } from '../../src/storage/database.js';
import { createRepositories } from '../../src/storage/repositories.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';

interface Outcome {
  readonly status: number;
  readonly requestId: string | null;
  readonly code: string | undefined;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Postgres restarted under load: no usage record lost, requests fail only with a clean 503', () => {
  const skip = privatePostgresUnavailable() ?? false;
  let postgres: PrivatePostgres | undefined;
  let gateway: GatewayProcess | undefined;
  let apiKey = '';
  let routerId = '';

  before(async () => {
    if (skip !== false) return;
    postgres = await startPrivatePostgres();
    const storage = openStorage(postgres.url);
    await migrateToLatest(storage);
    const admin = createAdminService(createRepositories(storage), loadShippedCatalog());
    await admin.createUser('restart@example.com', 'password123');
    routerId = (await admin.createRouter({ ownerEmail: 'restart@example.com', name: 'r', models: ['sim:small'], strategy: 'cost_optimized' })).id;
    apiKey = (await admin.createKey({ ownerEmail: 'restart@example.com', name: 'k' })).value;
    await storage.close();
    gateway = await startGatewayProcess({
      DATABASE_URL: postgres.url,
      MODELPORT_SECRET_KEY: 'restart-test-secret-key-0123456789abcdef',
      MODELPORT_SIM_TIME_SCALE: '0',
      MODELPORT_USAGE_FLUSH_MS: '100',
      // Far above what the test sends: this test is about the database, not rate limits.
      MODELPORT_DEFAULT_RPM: '1000000000',
      MODELPORT_CHANGE_POLL_MS: '100',
    });
  });

  after(async () => {
    await gateway?.stop();
    postgres?.destroy();
  });

  it('keeps answering from its caches while Postgres is down, and writes every record once it is back', { skip }, async () => {
    assert.ok(gateway !== undefined && postgres !== undefined);
    const outcomes: Outcome[] = [];
    let running = true;
    const load = async () => {
      while (running) {
        const response = await fetch(`${gateway!.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: routerId, stream: outcomes.length % 3 === 0, messages: [{ role: 'user', content: 'still there?' }] }),
        }).catch((error: unknown) => {
          running = false;
          throw new Error(`the gateway stopped answering (exit ${gateway!.child.exitCode}): ${String(error)}\n${gateway!.output().slice(-3000)}`);
        });
        const body = await response.text();
        const code = response.status === 200 ? undefined : (JSON.parse(body) as { error: { code: string } }).error.code;
        outcomes.push({ status: response.status, requestId: response.headers.get('x-request-id'), code });
        await pause(5);
      }
    };
    const loops = [load(), load()];
    const failure = Promise.all(loops).then(() => undefined, (error: unknown) => error);
    await pause(800);
    postgres.stop();
    await pause(2000);
    postgres.start();
    // Records queued during the outage are written by the next flushes.
    await pause(2000);
    running = false;
    const stopped = await failure;
    if (stopped !== undefined) throw stopped;
    const exitCode = await gateway.stop();
    assert.equal(exitCode, 0, gateway.output());

    const answered = outcomes.filter((outcome) => outcome.status === 200);
    const failed = outcomes.filter((outcome) => outcome.status !== 200);
    assert.ok(answered.length > 20, `only ${answered.length} answers`);
    for (const outcome of failed) assert.equal(outcome.status, 503, `a request failed with ${outcome.status} ${outcome.code}`);
    assert.doesNotMatch(gateway.output(), /"level":50.*unhandled error/);

    const storage = openStorage(postgres.url);
    const rows = await createRepositories(storage).usage.list({ limit: 100_000 });
    await storage.close();
    const recorded = new Set(rows.map((row) => row.id));
    const lost = outcomes.filter((outcome) => outcome.requestId !== null && !recorded.has(outcome.requestId));
    assert.deepEqual(lost, [], `${lost.length} of ${outcomes.length} requests have no usage record`);
    assert.equal(rows.length, outcomes.length, 'one record per request, none twice');
  });
});
