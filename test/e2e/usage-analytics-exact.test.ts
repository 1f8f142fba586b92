import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { sendVolumeTraffic, startVolumeUpstream, volumeFails, type VolumeTotals, type VolumeUpstream } from '../support/volume-traffic.js';

/**
 * The dashboard's usage report, read from rollups, against what the gateway answered at volume: every request and
 * error counted, the cost summed to the 1e-10 USD each answer is billed at, the tokens summed, and the latency
 * percentiles within 1 % of the exact ones over the recorded latencies (the sketch's accuracy is 0.5 %). Many
 * requests, so that a record lost, a batch summed twice or a float sum's drift would show.
 */

/** How many requests (MODELPORT_ANALYTICS_E2E_REQUESTS). */
const REQUESTS = Number(process.env.MODELPORT_ANALYTICS_E2E_REQUESTS ?? 300_000);
/** Connections to the gateway, each with one request in flight. */
const CONNECTIONS = 48;
/** One request in this many gets an upstream 500: the router has one model, so the request fails. */
const FAIL_EVERY = 997;

/** The nearest-rank percentile of ascending values: the ⌈p/100 · n⌉-th smallest. */
function nearestRank(sorted: readonly number[], p: number): number | undefined {
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

interface ReportTotals {
  readonly requests: number;
  readonly errors: number;
  readonly costUsd: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly p50LatencyMs: number | null;
  readonly p95LatencyMs: number | null;
}

describe(`usage analytics stay exact over ${REQUESTS} requests through the gateway`, () => {
  let upstream: VolumeUpstream;
  let gateway: Gateway;
  let sent: VolumeTotals;
  let report: ReportTotals;
  /** The latencies the gateway recorded, ascending. */
  let recorded: number[] = [];

  before(async () => {
    assert.ok(Number.isInteger(REQUESTS) && REQUESTS > 0, 'MODELPORT_ANALYTICS_E2E_REQUESTS is a positive whole number');
    upstream = await startVolumeUpstream({ apiKey: 'sk-test', failEvery: FAIL_EVERY });
    gateway = await startGateway({
      env: { OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: 'sk-test', MODELPORT_DEFAULT_RPM: String(100 * REQUESTS) },
      models: ['openai:gpt-4o-mini'],
    });
    const owner = new DashboardClient(gateway.origin);
    assert.equal((await owner.signIn(gateway.ownerEmail, 'correct horse battery')).status, 200);

    const from = Date.now();
    sent = await sendVolumeTraffic({
      origin: gateway.origin,
      path: `/api/router/${gateway.router.id}/chat/completions`,
      apiKey: gateway.apiKey,
      requests: REQUESTS,
      connections: CONNECTIONS,
    });

    // The recorder writes in batches off the request path, a record queued as its answer ends: flush until all are in.
    const db = gateway.app.storage.db;
    const records = () => db.selectFrom('usage_records').where('owner_id', '=', owner.userId);
    const count = async () => Number((await records().select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    for (let tries = 0; tries < 200 && (await count()) < REQUESTS; tries += 1) {
      await gateway.app.usage.flush();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    recorded = (await records().select('latency_ms').execute()).map((row) => Number(row.latency_ms)).sort((a, b) => a - b);

    const response = await owner.get<{ totals: ReportTotals }>(`${owner.ws}/usage?from=${from - 1000}&to=${Date.now() + 60_000}&bucket=hour`);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    report = response.body.totals;
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('sent every request, those the upstream failed answered as errors', (t) => {
    const seconds = sent.elapsedMs / 1000;
    t.diagnostic(`${REQUESTS} requests in ${seconds.toFixed(1)} s (${Math.round(REQUESTS / seconds)}/s), statuses ${JSON.stringify(sent.statuses)}`);
    let failing = 0;
    for (let index = 0; index < REQUESTS; index += 1) if (volumeFails(index, FAIL_EVERY)) failing += 1;
    assert.equal(sent.requests, REQUESTS);
    assert.equal(sent.errors, failing);
    assert.equal(gateway.app.usage.stats().dropped, 0, 'no usage record was dropped');
    assert.equal(recorded.length, REQUESTS, 'one usage record per request');
  });

  it('counts every request and every error', () => {
    assert.equal(report.requests, sent.requests);
    assert.equal(report.errors, sent.errors);
  });

  it("sums the cost to the 1e-10 USD of every answer's _meta.cost", () => {
    assert.ok(sent.costUnits > 0, 'the answers cost something');
    assert.equal(report.costUsd, sent.costUnits / 1e10);
  });

  it("sums the prompt and completion tokens of every answer's usage", () => {
    assert.ok(sent.promptTokens > 0 && sent.completionTokens > 0, 'the answers used tokens');
    assert.equal(report.promptTokens, sent.promptTokens);
    assert.equal(report.completionTokens, sent.completionTokens);
  });

  it('reads p50 and p95 within 1 % of the exact nearest-rank percentiles of the recorded latencies', (t) => {
    for (const [p, reported] of [
      [50, report.p50LatencyMs],
      [95, report.p95LatencyMs],
    ] as const) {
      const exact = nearestRank(recorded, p);
      t.diagnostic(`p${p}: reported ${reported} ms, exact ${exact} ms`);
      assert.ok(exact !== undefined && reported !== null, `p${p}: reported ${reported}, exact ${exact}`);
      assert.ok(Math.abs(reported - exact) <= 0.01 * exact, `p${p}: reported ${reported} ms, exact ${exact} ms`);
    }
  });
});
