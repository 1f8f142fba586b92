import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { assertError, rawRequest, type RawResponse } from '../support/raw-http.js';

/**
 * The query rule (src/http/query-string.ts): a query parameter given twice, longer than 512 characters,
 * holding a control character or a malformed percent-encoding is 400 `invalid_value` with `param` the key,
 * on every route; anything else a client puts in a query never yields a 5xx. Runs on the database of
 * TEST_DATABASE_URL when set (Postgres), else SQLite.
 */

/** FUZZ_RUNS=2000 for a deeper search; the default keeps the file to a few seconds. */
const RUNS_PER_ROUTE = Math.max(1, Math.round(Number(process.env.FUZZ_RUNS ?? 250) / 10));
const MAX_LENGTH = 512;

/** Every GET route the running app has, as Fastify prints them: new routes are covered without a change here. */
function getRoutes(app: FastifyInstance): string[] {
  const stack: string[] = [];
  const paths: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false, method: 'GET' }).split('\n')) {
    const match = /^([│ ]*)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/u.exec(line);
    if (match === null) continue;
    const [, indent = '', segment = '', methods = ''] = match;
    stack.length = indent.length / 4;
    stack.push(segment);
    if (methods.split(', ').includes('GET')) paths.push(stack.join(''));
  }
  return paths;
}

interface Ids {
  readonly workspace: string;
  readonly router: string;
  readonly agent: string;
  readonly execution: string;
  readonly response: string;
}

/** A route's path with real ids in its parameters, so each handler gets as far as reading its query. */
function fillIn(route: string, ids: Ids): string {
  const filled = route.replace(/(\w+)?\/:(\w+)/g, (_whole, before: string | undefined, name: string) => {
    const parent = before === undefined ? '' : `${before}/`;
    if (name === 'ws') return `${parent}${ids.workspace}`;
    if (name === 'routerId') return `${parent}${ids.router}`;
    if (name === 'responseId') return `${parent}${ids.response}`;
    if (name === 'name') return `${parent}${ids.agent}`;
    if (name === 'id') return `${parent}${before === 'routers' ? ids.router : before === 'executions' ? ids.execution : 'unknown-id'}`;
    return `${parent}unknown-${name}`;
  });
  // The static site's catch-all.
  return filled === '*' ? '/some/page' : filled.replace('*', 'some/page');
}

/** The query keys some route reads, and others no route reads. */
const KEYS = ['workspace', 'from', 'to', 'bucket', 'limit', 'before', 'after', 'routerId', 'keyId', 'range', 'stream', 'order', '_', 'model', 'q', '__proto__', 'constructor', 'toString'];

type Defect = 'oversized' | 'control' | 'malformed';

interface Parameter {
  readonly key: string;
  readonly value: string;
  readonly defect?: Defect;
}

const plainValue = fc.oneof(
  fc.constant(''),
  fc.constantFrom('1', '0', '-1', '20', '200', '201', '1e20', '9007199254740993', 'NaN', 'true', 'asc', 'desc', '1h', '24h', '7d', 'hour', 'day', '2026-01-01', 'rt_x', 'exe_x'),
  fc.string({ maxLength: 40 }).filter((text) => !/\p{Cc}/u.test(text)),
);

const parameter: fc.Arbitrary<Parameter> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ key: fc.constantFrom(...KEYS), value: plainValue }) },
  { weight: 1, arbitrary: fc.record({ key: fc.constantFrom(...KEYS), value: fc.integer({ min: MAX_LENGTH + 1, max: 4000 }).map((length) => 'v'.repeat(length)), defect: fc.constant<Defect>('oversized') }) },
  { weight: 1, arbitrary: fc.record({ key: fc.constantFrom(...KEYS), value: fc.constantFrom('\u0000', 'a\u0001b', '\u001f', '\u007f', 'line\nbreak', '\u0085'), defect: fc.constant<Defect>('control') }) },
  { weight: 1, arbitrary: fc.record({ key: fc.constantFrom(...KEYS), value: fc.constantFrom('%zz', '%E0%A4%A', '%', '%C3%28'), defect: fc.constant<Defect>('malformed') }) },
);

/** The parameters in order, sometimes with one of them given again later. */
const parameters = fc
  .tuple(fc.array(parameter, { maxLength: 6 }), fc.option(fc.tuple(fc.nat(), fc.nat(), plainValue), { nil: undefined }))
  .map(([list, repeat]) => {
    if (repeat === undefined || list.length === 0) return list;
    const [which, where, value] = repeat;
    const copy: Parameter = { key: list[which % list.length]!.key, value };
    const at = 1 + (where % list.length);
    return [...list.slice(0, at), copy, ...list.slice(at)];
  });

function queryOf(list: readonly Parameter[]): string {
  return list.map(({ key, value, defect }) => `${encodeURIComponent(key)}=${defect === 'malformed' ? value : encodeURIComponent(value)}`).join('&');
}

/** The key the rule must name: the first parameter that is defective or repeats an earlier key. */
function firstOffender(list: readonly Parameter[]): string | undefined {
  const seen = new Set<string>();
  for (const { key, defect } of list) {
    if (defect !== undefined || seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

describe('query parameters: one rule on every route, never a 5xx', () => {
  let gateway: Gateway;
  let dashboard: DashboardClient;
  let ids: Ids;
  let routes: string[];
  const statuses = new Map<number, number>();

  /** As a signed-in user and with a key at once: the dashboard reads the cookie, the key API the key. */
  const get = (path: string): Promise<RawResponse> =>
    rawRequest(gateway.origin, {
      path,
      headers: [
        ['Authorization', `Bearer ${gateway.apiKey}`],
        ['Cookie', dashboard.cookie ?? ''],
      ],
    });

  before(async () => {
    gateway = await startGateway();
    dashboard = new DashboardClient(gateway.origin);
    const signedIn = await dashboard.signIn(gateway.ownerEmail, 'correct horse battery');
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    const api = async (path: string, body: unknown) => {
      const response = await fetch(`${gateway.origin}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, unknown>;
      assert.ok(response.ok, `${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    await api('/api/v1/agents', { name: 'probe', steps: [{ name: 'only', router: gateway.router.id, prompt: 'Say {{input}}' }] });
    const run = await api('/api/router/v1/chat/completions', { model: 'agent:probe', messages: [{ role: 'user', content: 'hi' }] });
    const stored = await api('/api/router/v1/responses', { model: gateway.router.id, input: 'hi', store: true });
    ids = {
      workspace: dashboard.userId,
      router: gateway.router.id,
      agent: 'probe',
      execution: (run._meta as { execution_id: string }).execution_id,
      response: String(stored.id),
    };
    routes = getRoutes(gateway.app.server);
  });
  after(async () => {
    await gateway?.close();
    process.stdout.write(`# statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`);
  });

  it('finds the dashboard and key-authenticated GET routes in the running app', () => {
    for (const expected of ['/api/dashboard/catalog', '/api/dashboard/workspaces/:ws/usage/requests', '/api/router/v1/models', '/api/v1/agents/:name/executions', '/api/router/v1/responses/:responseId/input_items']) {
      assert.ok(routes.includes(expected), `${expected} not among ${routes.join(' ')}`);
    }
  });

  it('the original requests: a repeated workspace or routerId is 400 with param, not a 500', async () => {
    assertError(await get('/api/dashboard/catalog?workspace=A&workspace=B'), { status: 400, type: 'invalid_request_error', code: 'invalid_value', param: 'workspace', messageIncludes: ['more than once'] });
    assertError(await get(`/api/dashboard/workspaces/${ids.workspace}/usage/requests?routerId=a&routerId=b`), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_value',
      param: 'routerId',
      messageIncludes: ['more than once'],
    });
    // The same requests, each key once, are answered.
    assert.equal((await get(`/api/dashboard/catalog?workspace=${ids.workspace}`)).status, 200);
    assert.equal((await get(`/api/dashboard/workspaces/${ids.workspace}/usage/requests?routerId=${ids.router}`)).status, 200);
  });

  it('the rule holds on routes that take no query, and on the chat endpoint, in that surface\'s error shape', async () => {
    assertError(await get('/api/router/v1/models?x=1&x=2'), { status: 400, type: 'invalid_request_error', code: 'invalid_value', param: 'x' });
    const anthropic = await rawRequest(gateway.origin, {
      method: 'POST',
      path: '/api/router/v1/messages?beta=true&beta=true',
      headers: [['x-api-key', gateway.apiKey], ['Content-Type', 'application/json']],
      body: JSON.stringify({ model: gateway.router.id, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(anthropic.status, 400, anthropic.text);
    assert.equal((anthropic.json as { type: string }).type, 'error', anthropic.text);
  });

  it('repeated, empty, oversized, control-character and malformed parameters on every GET route: 400 with param for the rule, never a 5xx', async () => {
    for (const route of routes) {
      const path = fillIn(route, ids);
      const check = async (list: readonly Parameter[]) => {
        const response = await get(`${path}?${queryOf(list)}`);
        const where = `GET ${path}?${queryOf(list).slice(0, 300)} → ${response.status} ${response.text.slice(0, 300)}`;
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        assert.ok(response.status < 500, where);
        const offender = firstOffender(list);
        if (offender !== undefined) {
          assert.equal(response.status, 400, where);
          assert.deepEqual(response.json, { error: { ...(response.json as { error: object }).error, type: 'invalid_request_error', code: 'invalid_value', param: offender } }, where);
        } else if (response.status >= 400) {
          const error = (response.json as { error?: { code?: unknown; param?: unknown } } | undefined)?.error;
          assert.equal(typeof error?.code, 'string', where);
          assert.doesNotMatch(String(error?.code), /^FST_/, where);
        }
      };
      // The shapes of the original finding, then random mixtures.
      for (const key of KEYS.slice(0, 12)) {
        await check([{ key, value: 'a' }, { key, value: 'b' }]);
        await check([{ key, value: '' }]);
        await check([{ key, value: 'v'.repeat(MAX_LENGTH + 1), defect: 'oversized' }]);
      }
      await fc.assert(fc.asyncProperty(parameters, check), { numRuns: RUNS_PER_ROUTE });
    }
  });
});
