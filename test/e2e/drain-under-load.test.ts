import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAdminService } from '../../src/admin/admin-service.js';
import { loadShippedCatalog } from '../../src/catalog/catalog.js';
import { migrateToLatest, openStorage } from '../../src/storage/database.js';
import { createRepositories } from '../../src/storage/repositories.js';
import { createGatewayDatabase, type TestDatabase } from '../support/databases.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

interface Outcome {
  readonly status: number | 'refused';
  readonly requestId: string | null;
  readonly code: string | undefined;
  /** A 200 whose body arrived whole (`_meta` in it, and `[DONE]` for streams). */
  readonly complete: boolean;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SIGTERM under continuous load: every accepted request completes and is recorded', () => {
  let database: TestDatabase;
  let gateway: GatewayProcess;
  let apiKey = '';
  let routerId = '';

  before(async () => {
    database = await createGatewayDatabase();
    const storage = openStorage(database.url);
    await migrateToLatest(storage);
    const admin = createAdminService(createRepositories(storage), loadShippedCatalog());
    await admin.createUser('load@example.com', 'password123');
    routerId = (await admin.createRouter({ ownerEmail: 'load@example.com', name: 'r', models: ['sim:small'], strategy: 'cost_optimized' })).id;
    apiKey = (await admin.createKey({ ownerEmail: 'load@example.com', name: 'k' })).value;
    await storage.close();
    gateway = await startGatewayProcess({
      DATABASE_URL: database.url,
      MODELPORT_SECRET_KEY: 'drain-test-secret-key-0123456789abcdef',
      // ≈ 0.3–0.6 s an answer: many requests are in flight at any moment.
      MODELPORT_SIM_TIME_SCALE: '0.5',
      // Only the drain's final flush writes what is queued when SIGTERM lands.
      MODELPORT_USAGE_FLUSH_MS: '600000',
      // Far above what the test sends: this test is about the database, not rate limits.
      MODELPORT_DEFAULT_RPM: '1000000000',
    });
  });

  after(async () => {
    await gateway.stop();
    await database.drop();
  });

  it('closes the listener at once, lets every accepted request finish, records all of them, and exits 0', async () => {
    const outcomes: Outcome[] = [];
    let sent = 0;
    const sendOne = async (): Promise<Outcome> => {
      const stream = sent++ % 2 === 0;
      try {
        const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ model: routerId, stream, messages: [{ role: 'user', content: 'drain me gently' }] }),
        });
        const body = await response.text();
        if (response.status !== 200) {
          return { status: response.status, requestId: response.headers.get('x-request-id'), code: (JSON.parse(body) as { error: { code: string } }).error.code, complete: false };
        }
        const complete = body.includes('_meta') && (!stream || body.includes('data: [DONE]'));
        return { status: 200, requestId: response.headers.get('x-request-id'), code: undefined, complete };
      } catch {
        // The listener is closed: the connection is refused before any request is accepted.
        return { status: 'refused', requestId: null, code: undefined, complete: false };
      }
    };
    let running = true;
    const load = async () => {
      while (running) {
        const outcome = await sendOne();
        outcomes.push(outcome);
        if (outcome.status === 'refused') return;
      }
    };
    const loops = Array.from({ length: 12 }, () => load());
    await pause(1500);
    gateway.child.kill('SIGTERM');
    await pause(100);
    // A second SIGTERM must not cut the drain short.
    gateway.child.kill('SIGTERM');
    const exitCode = await gateway.stop();
    running = false;
    await Promise.all(loops);
    assert.equal(exitCode, 0, gateway.output());

    const answered = outcomes.filter((outcome) => outcome.status === 200);
    assert.ok(answered.length >= 12, `only ${answered.length} answers`);
    for (const outcome of outcomes) {
      assert.ok(outcome.status === 200 || outcome.status === 'refused' || (outcome.status === 503 && outcome.code === 'server_shutting_down'), JSON.stringify(outcome));
      if (outcome.status === 200) assert.ok(outcome.complete, `an accepted request was cut short: ${JSON.stringify(outcome)}`);
    }
    const storage = openStorage(database.url);
    const rows = await createRepositories(storage).usage.list({ limit: 100_000 });
    await storage.close();
    const recorded = new Map(rows.map((row) => [row.id, row.status]));
    for (const outcome of answered) assert.equal(recorded.get(outcome.requestId ?? ''), 200, `accepted request ${outcome.requestId} has no record`);
  });
});
