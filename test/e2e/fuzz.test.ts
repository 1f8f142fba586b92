import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { rawRequest, type RawResponse } from '../support/raw-http.js';

/**
 * Property-based robustness: whatever bytes, headers or paths a client sends,
 * the gateway answers below 500, every error is our JSON error body, and the
 * process keeps serving. Runs are bounded so the file stays well under 30 s.
 */
/** FUZZ_RUNS=5000 for a deeper search; the default keeps the file fast. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const BODY_LIMIT = 512 * 1024;
const COMPLETIONS = '/api/router/chat/completions';

type Header = readonly [string, string];

/** How many answers had each status, so a run that only ever hits one branch shows. */
const statuses = new Map<number, number>();

function assertSane(response: RawResponse, method: string, context: unknown): void {
  const where = `${JSON.stringify(context).slice(0, 600)} → ${response.status} ${response.text.slice(0, 300)}`;
  assert.ok(response.status >= 200 && response.status < 500, `status ${response.status}: ${where}`);
  if (response.status < 400 || method === 'HEAD') {
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    return;
  }
  assert.match(response.headers['content-type'] ?? '', /^application\/json/, where);
  const body = response.json as { error?: Record<string, unknown> } | undefined;
  assert.equal(typeof body?.error, 'object', where);
  for (const field of ['message', 'type', 'code'] as const) assert.equal(typeof body?.error?.[field], 'string', `${field}: ${where}`);
  assert.ok(body?.error?.param === null || typeof body?.error?.param === 'string', `param: ${where}`);
  // Nothing internal leaks: no framework codes, no JavaScript error names or stack traces.
  assert.doesNotMatch(String(body?.error?.code), /^FST_/, where);
  assert.doesNotMatch(String(body?.error?.message), /Maximum call stack|FST_ERR|TypeError|RangeError|ReferenceError|Cannot read prop|\n\s+at /, where);
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
}

/** Strings safe to put in a header value on the wire (no CR/LF, which would end the header). */
const headerText = (maxLength: number) => fc.string({ unit: 'binary-ascii', maxLength }).map((text) => text.replace(/[\r\n]/g, ''));

/** Sets `value` at `path` inside a copy of `base` (paths into arrays use numbers). */
function setAt(base: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const [index, step] of path.entries()) {
    if (index === path.length - 1) node[step] = value;
    else {
      const child = node[step];
      if (typeof child !== 'object' || child === null) return copy;
      node = child as Record<string | number, unknown>;
    }
  }
  return copy;
}

describe('fuzz: hostile input never yields a 5xx and always a JSON error', () => {
  let gateway: Gateway;
  let validBody: Record<string, unknown>;
  let auth: Header;

  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_DEFAULT_RPM: '100000000', MODELPORT_BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
    auth = ['Authorization', `Bearer ${gateway.apiKey}`];
    validBody = {
      model: gateway.router.id,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'What is the weather?' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '12 degrees' },
        { role: 'user', content: 'Thanks, and tomorrow?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
      tool_choice: 'auto',
      temperature: 0.7,
      max_tokens: 64,
      stream: false,
    };
  });
  after(async () => {
    // The server is still up after everything above.
    const health = await rawRequest(gateway.origin, { path: '/healthz' });
    await gateway.close();
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { status: 'ok' });
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
    if (process.env.FUZZ_STATS) console.log(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)));
  });

  const send = (body: string | Buffer, headers: readonly Header[] = [auth, ['Content-Type', 'application/json']]) =>
    rawRequest(gateway.origin, { method: 'POST', path: COMPLETIONS, headers, body });

  const wrong = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, '', ' ', 'x', '0.5', [], {}, [null], { '': '' }, { __proto__: null }, ['user']),
  );

  it('arbitrary JSON values, and request-shaped objects with wrong types anywhere', async () => {
    const role = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool') }, { weight: 1, arbitrary: wrong });
    const part = fc.record({ type: fc.oneof(fc.constantFrom('text', 'image_url', 'input_audio'), wrong), text: fc.oneof(fc.string(), wrong), image_url: wrong }, { requiredKeys: [] });
    const content = fc.oneof(fc.string(), fc.constant(null), fc.array(part, { maxLength: 3 }), wrong);
    const toolCall = fc.record(
      { id: fc.oneof(fc.string(), wrong), type: fc.oneof(fc.constant('function'), wrong), function: fc.oneof(fc.record({ name: fc.oneof(fc.string(), wrong), arguments: fc.oneof(fc.string(), wrong) }, { requiredKeys: [] }), wrong) },
      { requiredKeys: [] },
    );
    const message = fc.oneof(
      { weight: 4, arbitrary: fc.record({ role, content, name: fc.oneof(fc.string(), wrong), tool_calls: fc.oneof(fc.array(toolCall, { maxLength: 2 }), wrong), tool_call_id: fc.oneof(fc.string(), wrong) }, { requiredKeys: ['role'] }) },
      { weight: 1, arbitrary: wrong },
    );
    const schema = fc.oneof(
      fc.constant({ type: 'object', properties: { a: { type: 'string' }, b: { enum: ['x'] }, c: null, d: 5 }, required: ['a', 'b', 'c', 'd', 'e'] }),
      fc.record({ type: wrong, properties: wrong, required: wrong }, { requiredKeys: [] }),
      wrong,
    );
    const tool = fc.record(
      {
        type: fc.oneof(fc.constant('function'), wrong),
        function: fc.oneof(
          fc.record({ name: fc.oneof(fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/), wrong), description: fc.oneof(fc.string(), wrong), parameters: schema, strict: fc.oneof(fc.boolean(), wrong) }, { requiredKeys: [] }),
          wrong,
        ),
      },
      { requiredKeys: [] },
    );
    const model = fc.oneof(
      { weight: 5, arbitrary: fc.constant(gateway.router.id) },
      { weight: 1, arbitrary: fc.constantFrom('gpt-4o', 'agent:x', 'agent:', '', 'rt_unknown', 'sim:small', `${gateway.router.id} `, gateway.router.id.toUpperCase()) },
      { weight: 1, arbitrary: fc.string() },
      { weight: 1, arbitrary: wrong },
    );
    const requestLike = fc.record(
      {
        model,
        messages: fc.oneof({ weight: 4, arbitrary: fc.array(message, { minLength: 1, maxLength: 4 }) }, { weight: 1, arbitrary: wrong }),
        stream: fc.oneof(fc.boolean(), wrong),
        stream_options: fc.oneof(fc.record({ include_usage: fc.oneof(fc.boolean(), wrong) }, { requiredKeys: [] }), wrong),
        temperature: fc.oneof(fc.double({ min: -1, max: 3 }), wrong),
        max_tokens: fc.oneof(fc.integer({ min: -5, max: 300_000 }), wrong),
        max_completion_tokens: fc.oneof(fc.integer({ min: -5, max: 300_000 }), wrong),
        n: fc.oneof(fc.integer({ min: -1, max: 3 }), wrong),
        tools: fc.oneof(fc.array(tool, { maxLength: 3 }), wrong),
        tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required'), fc.record({ type: fc.constant('function'), function: fc.oneof(fc.record({ name: fc.string() }), wrong) }), wrong),
        top_p: wrong,
        seed: wrong,
        user: wrong,
        stop: wrong,
        response_format: wrong,
        logit_bias: wrong,
        metadata: wrong,
        store: wrong,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), requestLike), async (value) => {
        const response = await send(JSON.stringify(value) ?? 'null');
        assertSane(response, 'POST', value);
      }),
      { numRuns: RUNS },
    );
  });

  it('a valid request with one field (at any depth) replaced by a wrong value', async () => {
    const paths: ReadonlyArray<ReadonlyArray<string | number>> = [
      ['model'], ['messages'], ['messages', 0], ['messages', 0, 'role'], ['messages', 0, 'content'],
      ['messages', 1, 'content'], ['messages', 1, 'content', 0], ['messages', 1, 'content', 0, 'type'], ['messages', 1, 'content', 0, 'text'],
      ['messages', 1, 'name'], ['messages', 2, 'content'], ['messages', 2, 'tool_calls'], ['messages', 2, 'tool_calls', 0],
      ['messages', 2, 'tool_calls', 0, 'id'], ['messages', 2, 'tool_calls', 0, 'type'], ['messages', 2, 'tool_calls', 0, 'function'],
      ['messages', 2, 'tool_calls', 0, 'function', 'name'], ['messages', 2, 'tool_calls', 0, 'function', 'arguments'],
      ['messages', 3, 'tool_call_id'], ['messages', 3, 'role'], ['messages', 4], ['tools'], ['tools', 0], ['tools', 0, 'type'],
      ['tools', 0, 'function'], ['tools', 0, 'function', 'name'], ['tools', 0, 'function', 'parameters'],
      ['tools', 0, 'function', 'parameters', 'properties'], ['tools', 0, 'function', 'parameters', 'properties', 'city'],
      ['tools', 0, 'function', 'parameters', 'required'], ['tool_choice'], ['temperature'], ['max_tokens'], ['max_completion_tokens'],
      ['n'], ['stream'], ['stream_options'], ['stream_options', 'include_usage'], ['response_format'], ['stop'], ['logit_bias'],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), wrong, fc.boolean(), async (path, value, stream) => {
        const body = setAt({ ...validBody, stream }, path, value);
        const response = await send(JSON.stringify(body));
        assertSane(response, 'POST', { path, value, stream });
      }),
      { numRuns: RUNS },
    );
  });

  it('deep nesting, huge strings, __proto__ / constructor keys', async () => {
    const deep = fc
      .tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('array', 'object'), fc.constantFrom('top', 'field', 'content', 'tool'))
      .map(([depth, kind, where]) => {
        const nested = kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
        const id = JSON.stringify(gateway.router.id);
        if (where === 'top') return nested;
        if (where === 'field') return `{"model":${id},"messages":[{"role":"user","content":"hi"}],"metadata":${nested}}`;
        if (where === 'content') return `{"model":${id},"messages":[{"role":"user","content":[{"type":"text","text":"x","extra":${nested}}]}]}`;
        return `{"model":${id},"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nested}}}]}`;
      });
    const huge = fc
      .tuple(fc.integer({ min: 1_000, max: BODY_LIMIT + 4_096 }), fc.string({ minLength: 1, maxLength: 4 }), fc.constantFrom('content', 'model', 'name', 'unknown'))
      .map(([length, unit, where]) => {
        const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
        const body: Record<string, unknown> = { model: gateway.router.id, messages: [{ role: 'user', content: 'hi' }] };
        if (where === 'content') body.messages = [{ role: 'user', content: text }];
        else if (where === 'model') body.model = text;
        else if (where === 'name') body.messages = [{ role: 'user', content: 'hi', name: text }];
        else body.unknown = text;
        return JSON.stringify(body);
      });
    const prototypeKeys = fc
      .tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('top', 'message', 'tool', 'deep'))
      .map(([key, value, where]) => {
        const polluting = `{${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'},"polluted":true,"prototype":{"polluted":true}}`;
        const id = JSON.stringify(gateway.router.id);
        const entry = `${JSON.stringify(key)}:${polluting}`;
        if (where === 'top') return `{${entry},"model":${id},"messages":[{"role":"user","content":"hi"}]}`;
        if (where === 'message') return `{"model":${id},"messages":[{${entry},"role":"user","content":"hi"}]}`;
        if (where === 'tool') return `{"model":${id},"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{${entry},"type":"object","properties":{${entry}}}}}]}`;
        return `{"model":${id},"messages":[{"role":"user","content":[{"type":"text","text":"x",${entry}}]}],"stream_options":{${entry}},"metadata":{"a":[{${entry}}]}}`;
      });
    await fc.assert(
      fc.asyncProperty(fc.oneof(deep, huge, prototypeKeys), async (body) => {
        const response = await send(body);
        assertSane(response, 'POST', body.slice(0, 300));
        assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
        assert.equal(Object.prototype.toString.call([]), '[object Array]');
      }),
      { numRuns: RUNS },
    );
  });

  it('invalid UTF-8 bytes and truncated JSON', async () => {
    const bytes = fc.constantFrom(
      [0xff], [0xfe], [0xc0, 0x80], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xf0, 0x9f, 0x98], [0x00],
    );
    const corrupted = fc
      .tuple(fc.boolean(), fc.nat(), fc.oneof(bytes, fc.uint8Array({ minLength: 1, maxLength: 16 }).map((array) => [...array])))
      .map(([stream, position, inserted]) => {
        const text = Buffer.from(JSON.stringify({ ...validBody, stream }), 'utf8');
        const at = position % (text.length + 1);
        return Buffer.concat([text.subarray(0, at), Buffer.from(inserted), text.subarray(at)]);
      });
    const truncated = fc.tuple(fc.boolean(), fc.nat()).map(([stream, position]) => {
      const text = Buffer.from(JSON.stringify({ ...validBody, stream, messages: [{ role: 'user', content: 'Grüße 👋 ok' }] }), 'utf8');
      return text.subarray(0, position % text.length);
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(corrupted, truncated), async (body) => {
        const response = await send(body);
        assertSane(response, 'POST', body.toString('latin1').slice(0, 300));
      }),
      { numRuns: RUNS },
    );
  });

  it('hostile Authorization and Content-Type headers, and none at all', async () => {
    const key = gateway.apiKey;
    const authorization = fc.oneof(
      fc.constantFrom<string | undefined>(
        undefined, key, 'Bearer', 'Bearer ', '', ' ', `bearer ${key}`, `BEARER ${key}`, `Bearer  ${key}`, `Bearer\t${key}`, `Bearer ${key} `, `Bearer ${key} extra`,
        `Bearer ${key}${key}`, `Bearer ${key.slice(0, -1)}`, `Bearer ${key.toUpperCase()}`, `Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
        `Bearer mp_`, `Bearer mp_${'A'.repeat(129)}`, `Bearer mp_${'%00'.repeat(20)}`, `Bearer ${'x'.repeat(8_000)}`, 'Bearer null', 'Bearer undefined',
        `Bearer ${key}\u00e9`, 'Negotiate abc', `Bearer ${key},Bearer ${key}`,
      ),
      headerText(200).map((text) => `Bearer ${text}`),
      headerText(200),
      fc.tuple(fc.nat({ max: key.length - 1 }), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 })).map(([at, character]) => `Bearer ${key.slice(0, at)}${character}${key.slice(at + 1)}`),
    );
    const contentType = fc.oneof(
      fc.constantFrom<string | undefined>(
        undefined, 'application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'APPLICATION/JSON', 'text/plain',
        'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz', 'application/octet-stream', '', ';', '/', '*/*', 'application/json;;;',
        'application/json; charset="', 'text/event-stream', 'application/xml', 'application/json, text/plain', 'application/vnd.api+json',
      ),
      headerText(100),
    );
    const extra = fc.array(
      fc.tuple(fc.oneof(fc.constantFrom('X-Forwarded-Proto', 'X-Forwarded-For', 'Accept', 'Accept-Encoding', 'Content-Encoding', 'Expect', 'Origin', 'Cookie', 'X-Request-Id', 'Authorization'), fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,30}$/)), fc.oneof(headerText(100), fc.constantFrom('100-continue', '', 'https', 'http', '10.9.9.9', 'gzip', 'null'))),
      { maxLength: 3 },
    );
    const body = fc.oneof(
      fc.constant(JSON.stringify(validBody)),
      fc.constant(''),
      fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value) ?? ''),
      fc.constant('model=rt_x&messages=hi'),
    );
    await fc.assert(
      fc.asyncProperty(authorization, contentType, extra, body, async (authValue, typeValue, extraHeaders, payload) => {
        const headers: Header[] = [];
        if (authValue !== undefined) headers.push(['Authorization', authValue]);
        if (typeValue !== undefined) headers.push(['Content-Type', typeValue]);
        headers.push(...extraHeaders.filter(([name]) => !/^(content-length|transfer-encoding|host|connection)$/i.test(name)));
        const response = await send(payload, headers);
        assertSane(response, 'POST', { headers, payload: payload.slice(0, 100) });
      }),
      { numRuns: RUNS },
    );
  });

  it('hostile paths: encoded slashes, dot segments, unicode, very long, query strings, any method', async () => {
    const id = gateway.router.id;
    const segment = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('api', 'router', 'v1', 'chat', 'completions', 'models', 'healthz', id, 'rt_unknown', `agent:x`, gateway.apiKey) },
      { weight: 3, arbitrary: fc.constantFrom('..', '.', '', '%2F', '%2f', '%2e%2e', '%2E', '%00', '%', '%zz', '%E0%A4%A', '%252F', '%C0%AF', '%FF', '..%2F..', '\\', '..\\..', ';', ';x=1', '*', '~', '@', ':') },
      { weight: 2, arbitrary: fc.webSegment() },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(encodeURIComponent) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 8 }).map((text) => text.replace(/[\r\n]/g, '')) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('a', '%2F', '../', id), fc.integer({ min: 100, max: 9_000 })).map(([unit, times]) => unit.repeat(times)) },
    );
    const prefix = fc.constantFrom('/api/router', '/api/router/v1', '', '/v1', '/api', '//api//router', '/API/ROUTER', '/api/router/');
    const suffix = fc.oneof(
      fc.constant(''),
      fc.webQueryParameters().map((query) => `?${query}`),
      fc.string({ unit: 'grapheme', maxLength: 20 }).map((text) => `?q=${text}`),
      fc.constantFrom('?', '??', '?model=rt_x', `?api_key=${gateway.apiKey}`, '#frag', '?a=%zz', '?%', `?${'a=1&'.repeat(2_000)}`),
    );
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'FOO');
    const request = fc.tuple(method, prefix, fc.array(segment, { maxLength: 5 }), suffix, fc.boolean());
    await fc.assert(
      fc.asyncProperty(request, async ([verb, start, segments, query, withBody]) => {
        const path = `${start}/${segments.join('/')}${query}`;
        const body = withBody && verb !== 'GET' && verb !== 'HEAD' ? JSON.stringify(validBody) : undefined;
        const response = await rawRequest(gateway.origin, {
          method: verb,
          path,
          headers: [auth, ...(body !== undefined ? [['Content-Type', 'application/json'] as const] : [])],
          ...(body !== undefined ? { body } : {}),
        });
        assertSane(response, verb, { verb, path: path.slice(0, 300), length: path.length });
      }),
      { numRuns: RUNS },
    );
  });
});
