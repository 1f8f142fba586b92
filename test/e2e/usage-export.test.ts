import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { UsageRecordRow } from '../../src/storage/schema.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const CALLS = 30;
const DAY_MS = 86_400_000;

describe('dashboard usage export (CSV and JSON lines)', () => {
  let gateway: Gateway;
  let owner: DashboardClient;
  let range = '';
  const requestIds: string[] = [];
  /** The stored record of each request made. */
  const records = new Map<string, UsageRecordRow>();

  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_DEFAULT_RPM: '100000' } });
    owner = new DashboardClient(gateway.origin);
    assert.equal((await owner.signIn(gateway.ownerEmail, 'correct horse battery')).status, 200);
    const from = Date.now();
    for (let call = 0; call < CALLS; call += 1) {
      const response = await fetch(`${gateway.baseUrl}/${gateway.router.id}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
        body: JSON.stringify({ messages: [{ role: 'user', content: `bill me ${call}, please` }], ...(call % 4 === 0 ? { stream: true } : {}) }),
      });
      const text = await response.text();
      assert.equal(response.status, 200, text);
      requestIds.push(response.headers.get('x-request-id') ?? '');
    }
    await gateway.app.usage.flush();
    for (const row of await gateway.app.repositories.usage.list({ limit: 1000 })) records.set(row.id, row);
    assert.ok(requestIds.every((id) => records.has(id)), 'every call has its usage record');
    range = `from=${from - 1000}&to=${new Date(Date.now() + 1000).toISOString()}`;
  });
  after(() => gateway.close());

  /** The export as raw text (the dashboard client would try JSON.parse on an application/x-ndjson body). */
  const download = async (query: string, client = owner) => {
    const response = await fetch(`${gateway.origin}${client.ws}/usage/export${query === '' ? '' : `?${query}`}`, { headers: client.cookie === undefined ? {} : { cookie: client.cookie } });
    return { status: response.status, headers: response.headers, body: await response.text() };
  };

  /** Each request id of the export exactly once, with its record's cost. */
  const assertEveryCallOnce = (rows: readonly { id: string; costUsd: number }[]) => {
    assert.deepEqual(rows.map((row) => row.id).sort(), [...requestIds].sort());
    for (const row of rows) assert.equal(row.costUsd, records.get(row.id)?.cost_usd, row.id);
    assert.ok(rows.some((row) => row.costUsd > 0), 'the calls cost something');
  };

  it('CSV: a download with a header and each call once, at its recorded cost', async () => {
    const response = await download(`format=csv&${range}`);
    assert.equal(response.status, 200, String(response.body));
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(response.headers.get('content-disposition') ?? '', /^attachment; filename="modelport-usage-\d{8}T\d{6}Z-\d{8}T\d{6}Z\.csv"$/);
    // Streamed: sent in chunks as it is read, its length unknown up front.
    assert.equal(response.headers.get('content-length'), null);
    const rows = parse(response.body, { columns: true }) as Record<string, string>[];
    assertEveryCallOnce(rows.map((row) => ({ id: row.id ?? '', costUsd: Number(row.costUsd) })));
    const first = rows[0];
    assert.ok(first !== undefined);
    const stored = records.get(first.id ?? '');
    assert.equal(first.createdAt, new Date(stored?.created_at ?? 0).toISOString());
    assert.equal(first.routerId, gateway.router.id);
    assert.equal(first.model, stored?.model);
    assert.equal(Number(first.totalTokens), stored?.total_tokens);
    // Oldest first.
    const times = rows.map((row) => Date.parse(row.createdAt ?? ''));
    assert.deepEqual(times, [...times].sort((a, b) => a - b));
  });

  it('JSON lines: one object per call, the same fields', async () => {
    const response = await download(`format=jsonl&${range}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
    assert.match(response.headers.get('content-disposition') ?? '', /\.jsonl"$/);
    const lines = response.body.trimEnd().split('\n').map((line) => JSON.parse(line) as { id: string; costUsd: number; streamed: boolean; keyId: string });
    assertEveryCallOnce(lines);
    assert.equal(lines.filter((line) => line.streamed).length, Math.ceil(CALLS / 4));
    assert.equal(new Set(lines.map((line) => line.keyId)).size, 1);
  });

  it('the last 24 hours by default; filters by router and key', async () => {
    const all = await download('');
    assert.equal(all.status, 200);
    assert.equal(all.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal((parse(all.body, { columns: true }) as unknown[]).length, CALLS);
    const keyId = records.get(requestIds[0] ?? '')?.key_id ?? '';
    const byKey = await download(`format=jsonl&keyId=${keyId}&routerId=${gateway.router.id}&${range}`);
    assert.equal(byKey.body.trimEnd().split('\n').length, CALLS);
    const otherRouter = await download(`routerId=rt_none&${range}`);
    assert.deepEqual(parse(otherRouter.body, { columns: true }), []);
    // A range that ended before the calls.
    const earlier = await download(`format=jsonl&to=${Date.now() - DAY_MS}`);
    assert.equal(earlier.status, 200);
    assert.equal(earlier.body, '');
  });

  it('refuses bad parameters with a 400 naming the parameter', async () => {
    const now = Date.now();
    for (const [query, param] of [
      ['format=xml', 'format'],
      ['from=yesterday', 'from'],
      ['to=soon', 'to'],
      [`from=${now}&to=${now - 1}`, 'from'],
      [`from=${now - 367 * DAY_MS}&to=${now}`, 'from'],
    ] as const) {
      const response = await owner.get(`${owner.ws}/usage/export?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.error.type, 'invalid_request_error', query);
      assert.equal(response.body.error.param, param, query);
    }
    assert.equal((await owner.get(`${owner.ws}/usage/export?from=${now - 366 * DAY_MS}&to=${now}`)).status, 200);
  });

  it("needs a session and a member of the workspace; another workspace's export has none of these calls", async () => {
    assert.equal((await new DashboardClient(gateway.origin).get(`${owner.ws}/usage/export`)).status, 401);
    const stranger = new DashboardClient(gateway.origin);
    assert.equal((await stranger.signUp('stranger@example.com')).status, 201);
    const theirs = await download(range, stranger);
    assert.equal(theirs.status, 200);
    assert.deepEqual(parse(theirs.body, { columns: true }), []);
    assert.equal((await stranger.get(`${owner.ws}/usage/export?${range}`)).status, 404);
  });
});
