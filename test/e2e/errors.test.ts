import assert from 'node:assert/strict';
import { connect, createServer as createNetServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { Writable } from 'node:stream';
import type { UsageRecorder } from '../../src/accounting/usage-recorder.js';
import { createKeyAuthenticator } from '../../src/auth/key-authenticator.js';
import { generateApiKey } from '../../src/auth/api-key-format.js';
import type { AppDependencies } from '../../src/http/dependencies.js';
import { createServer, type ServerOptions } from '../../src/http/server.js';
import { createInProcessRateLimiter } from '../../src/limits/request-rate-limiter.js';
import { serverWideProvidersOnly } from '../../src/providers/credentials/owner-providers.js';
import { createProviderRegistry } from '../../src/providers/credentials/registry.js';
import { createUpstreamDispatcher, defaultTimeouts } from '../../src/providers/transport/http-client.js';
import { loadShippedCatalog } from '../../src/catalog/catalog.js';
import { shippedCatalogOnly } from '../../src/catalog/owner-catalog.js';
import type { ApiKeyRecord } from '../../src/storage/api-keys-repository.js';
import { bumpChangeCounter } from '../../src/storage/changes-repository.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { assertError, rawRequest, readFetchResponse, type RawResponse } from '../support/raw-http.js';

const hello = [{ role: 'user', content: 'Hello' }];

interface CallOptions {
  readonly method?: string;
  /** The API key; null sends no Authorization header. */
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is. */
  readonly body?: unknown;
}

function caller(gateway: () => Gateway) {
  return async (path: string, options: CallOptions = {}): Promise<RawResponse> => {
    const key = options.key === undefined ? gateway().apiKey : options.key;
    const headers: Record<string, string> = {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
      ...options.headers,
    };
    const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const response = await fetch(`${gateway().origin}${path}`, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    return readFetchResponse(response);
  };
}

const COMPLETIONS = '/api/router/chat/completions';

describe('error table: one row per error against a listening server', () => {
  let gateway: Gateway;
  let otherOwnersRouter: string;
  let secondRouter: string;
  let scopedKey: string;
  const call = caller(() => gateway);
  const chat = (body: unknown, options: Omit<CallOptions, 'body'> = {}) => call(COMPLETIONS, { ...options, body });

  before(async () => {
    gateway = await startGateway();
    await gateway.admin.createUser('other@example.com', 'another long password');
    otherOwnersRouter = (await gateway.admin.createRouter({ ownerEmail: 'other@example.com', name: 'theirs', models: ['sim:small'], strategy: 'cost_optimized' })).id;
    secondRouter = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'second', models: ['sim:medium'], strategy: 'quality_optimized' })).id;
    scopedKey = (await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'scoped to the first router', routerIds: [gateway.router.id] })).value;
  });
  after(async () => {
    await gateway.close();
  });

  it('answers a valid request (the baseline every row departs from)', async () => {
    const response = await chat({ model: gateway.router.id, messages: hello });
    assert.equal(response.status, 200, response.text);
    assert.equal((response.json as { object: string }).object, 'chat.completion');
  });

  describe('400 invalid_request_error', () => {
    it('invalid_json: a body that is not JSON', async () => {
      assertError(await chat('{"model": "rt_x", "messages": ['), { status: 400, type: 'invalid_request_error', code: 'invalid_json', messageIncludes: ['JSON'] });
      assertError(await chat('model=rt_x&messages=hi', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'invalid_json',
      });
    });

    it('invalid_json: an empty body, with or without a content type', async () => {
      assertError(await chat(''), { status: 400, type: 'invalid_request_error', code: 'invalid_json', messageIncludes: ['empty'] });
      assertError(await chat('  \n '), { status: 400, type: 'invalid_request_error', code: 'invalid_json', messageIncludes: ['empty'] });
      const bare = await rawRequest(gateway.origin, { method: 'POST', path: COMPLETIONS, headers: [['Authorization', `Bearer ${gateway.apiKey}`]] });
      assertError(bare, { status: 400, type: 'invalid_request_error', code: 'invalid_json', messageIncludes: ['empty'] });
    });

    for (const [name, body] of [['an array', '[]'], ['a number', '42'], ['a string', '"hello"'], ['null', 'null'], ['true', 'true']] as const) {
      it(`invalid_type: JSON that is ${name}, not an object`, async () => {
        assertError(await chat(body), { status: 400, type: 'invalid_request_error', code: 'invalid_type', messageIncludes: ['JSON object'] });
      });
    }

    it('missing_required_parameter: no messages', async () => {
      assertError(await chat({ model: gateway.router.id }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'messages',
        messageIncludes: ['messages'],
      });
    });

    it('missing_required_parameter: a message without role, a user message without content', async () => {
      assertError(await chat({ model: gateway.router.id, messages: [{ content: 'hi' }] }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'messages[0].role',
      });
      assertError(await chat({ model: gateway.router.id, messages: [{ role: 'user' }] }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'messages[0].content',
      });
    });

    it('invalid_value: empty messages', async () => {
      assertError(await chat({ model: gateway.router.id, messages: [] }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'messages',
      });
    });

    it('invalid_type: messages that are not an array, a message that is not an object', async () => {
      assertError(await chat({ model: gateway.router.id, messages: 'Hello' }), { status: 400, type: 'invalid_request_error', code: 'invalid_type', param: 'messages' });
      assertError(await chat({ model: gateway.router.id, messages: ['Hello'] }), { status: 400, type: 'invalid_request_error', code: 'invalid_type', param: 'messages[0]' });
    });

    it('invalid_value: an unknown role names the roles that are accepted', async () => {
      assertError(await chat({ model: gateway.router.id, messages: [{ role: 'wizard', content: 'hi' }] }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'messages[0].role',
        messageIncludes: ['role', 'user', 'assistant', 'system'],
      });
    });

    for (const [value, code] of [[2.5, 'invalid_value'], [-1, 'invalid_value'], ['0.5', 'invalid_type'], [true, 'invalid_type']] as const) {
      it(`${code}: temperature ${JSON.stringify(value)} (bounded 0 to 2, strings never coerced)`, async () => {
        assertError(await chat({ model: gateway.router.id, messages: hello, temperature: value }), {
          status: 400,
          type: 'invalid_request_error',
          code,
          param: 'temperature',
          messageIncludes: ['temperature'],
        });
      });
    }

    it('accepts temperature at both bounds and null', async () => {
      for (const temperature of [0, 2, null]) {
        const response = await chat({ model: gateway.router.id, messages: hello, temperature });
        assert.equal(response.status, 200, `temperature ${String(temperature)}: ${response.text}`);
      }
    });

    for (const [value, code] of [[0, 'invalid_value'], [-5, 'invalid_value'], [1.5, 'invalid_type'], ['10', 'invalid_type']] as const) {
      it(`${code}: max_tokens ${JSON.stringify(value)}`, async () => {
        assertError(await chat({ model: gateway.router.id, messages: hello, max_tokens: value }), {
          status: 400,
          type: 'invalid_request_error',
          code,
          param: 'max_tokens',
          messageIncludes: ['max_tokens'],
        });
      });
    }

    it('bad tools shapes', async () => {
      const base = { model: gateway.router.id, messages: hello };
      assertError(await chat({ ...base, tools: 'search' }), { status: 400, type: 'invalid_request_error', code: 'invalid_type', param: 'tools' });
      assertError(await chat({ ...base, tools: [{ type: 'function' }] }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'tools[0].function',
      });
      assertError(await chat({ ...base, tools: [{ type: 'retrieval', function: { name: 'x' } }] }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'tools[0].type',
      });
      assertError(await chat({ ...base, tools: [{ type: 'function', function: { name: 'has spaces!' } }] }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'tools[0].function.name',
      });
      assertError(await chat({ ...base, tools: [{ type: 'function', function: { name: 'ok', parameters: 'not a schema' } }] }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'invalid_type',
        param: 'tools[0].function.parameters',
      });
    });

    it('accepts a well-formed tool', async () => {
      const response = await chat({
        model: gateway.router.id,
        messages: hello,
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      });
      assert.equal(response.status, 200, response.text);
    });

    it('router_required: no router in the body or the path', async () => {
      for (const body of [{ messages: hello }, { model: '', messages: hello }, { model: null, messages: hello }]) {
        assertError(await chat(body), { status: 400, type: 'invalid_request_error', code: 'router_required', param: 'model', messageIncludes: ['router id'] });
      }
    });

    it('invalid_type: model that is not a string', async () => {
      assertError(await chat({ model: 42, messages: hello }), { status: 400, type: 'invalid_request_error', code: 'invalid_type', param: 'model' });
    });

    it('unsupported_value: n greater than 1', async () => {
      assertError(await chat({ model: gateway.router.id, messages: hello, n: 2 }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'unsupported_value',
        param: 'n',
      });
      assert.equal((await chat({ model: gateway.router.id, messages: hello, n: 1 })).status, 200);
    });

    it('context_length_exceeded: no model of the router has room for the request', async () => {
      assertError(await chat({ model: gateway.router.id, messages: hello, max_tokens: 500_000 }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
        param: 'messages',
        messageIncludes: ['context window'],
      });
    });

    it('does NOT reject the OpenAI parameters it does not interpret', async () => {
      const response = await chat({
        model: gateway.router.id,
        messages: hello,
        top_p: 0.9,
        seed: 7,
        user: 'user-123',
        response_format: { type: 'json_object' },
        logit_bias: { '50256': -100 },
        metadata: { purpose: 'test' },
        store: false,
        frequency_penalty: 0.5,
        presence_penalty: -0.5,
        stop: ['\n\n'],
        logprobs: false,
        parallel_tool_calls: true,
        service_tier: 'auto',
        reasoning_effort: 'low',
        some_future_parameter: { nested: [1, 2, 3] },
      });
      assert.equal(response.status, 200, response.text);
    });
  });

  describe('401 authentication_error / invalid_api_key', () => {
    const unauthorized = { status: 401, type: 'authentication_error', code: 'invalid_api_key', messageIncludes: ['API key'] } as const;
    const valid = () => ({ model: gateway.router.id, messages: hello });

    it('no Authorization header', async () => {
      assertError(await chat(valid(), { key: null }), unauthorized);
    });

    it('"Bearer" with nothing after it, an empty header, a wrong scheme', async () => {
      for (const authorization of ['Bearer', 'Bearer ', '', `Basic ${Buffer.from('user:pass').toString('base64')}`, `Token ${gateway.apiKey}`, `${gateway.apiKey}`]) {
        assertError(await chat(valid(), { key: null, headers: { authorization } }), unauthorized);
      }
    });

    it('a key without the mp_ prefix, and malformed mp_ keys', async () => {
      for (const key of ['sk-proj-abcdefghijklmnopqrstuvwxyz0123456789', gateway.apiKey.slice(3), 'mp_short', `mp_${'a'.repeat(31)}`, `mp_${'a'.repeat(40)}!`, `MP_${gateway.apiKey.slice(3)}`]) {
        assertError(await chat(valid(), { key }), unauthorized);
      }
    });

    it('a well-formed key the server never issued', async () => {
      assertError(await chat(valid(), { key: generateApiKey().value }), unauthorized);
    });

    it('an expired key', async () => {
      const { key, value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'short-lived', expiresInMs: 1 });
      // Wait for the expiry itself, not a guessed duration.
      while (Date.now() <= (key.expiresAt ?? 0)) await new Promise((resolve) => setImmediate(resolve));
      assertError(await chat(valid(), { key: value }), { ...unauthorized, messageIncludes: ['expired'] });
    });

    it('a key whose expiry was written in the past in the database', async () => {
      const { key, value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'expires by hand' });
      assert.equal((await chat(valid(), { key: value })).status, 200);
      await gateway.app.storage.db.updateTable('api_keys').set({ expires_at: Date.now() - 60_000 }).where('id', '=', key.id).execute();
      await bumpChanges(gateway);
      assertError(await chat(valid(), { key: value }), { ...unauthorized, messageIncludes: ['expired'] });
    });

    it('a revoked key', async () => {
      const { key, value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'to revoke' });
      assert.equal((await chat(valid(), { key: value })).status, 200);
      await gateway.admin.revokeKey(gateway.ownerEmail, key.id);
      await gateway.app.changes.poll();
      assertError(await chat(valid(), { key: value }), { ...unauthorized, messageIncludes: ['revoked'] });
    });

    it('also guards GET /models', async () => {
      assertError(await call('/api/router/models', { key: null }), unauthorized);
      assertError(await call('/api/router/v1/models', { key: 'mp_nope' }), unauthorized);
    });
  });

  describe('403 authorization_error / router_access_denied', () => {
    const denied = { status: 403, type: 'authorization_error', code: 'router_access_denied', messageIncludes: ['access'] } as const;

    it("another owner's router, in the body or the path", async () => {
      assertError(await chat({ model: otherOwnersRouter, messages: hello }), denied);
      assertError(await call(`/api/router/${otherOwnersRouter}/chat/completions`, { body: { messages: hello } }), denied);
      assertError(await call(`/api/router/v1/${otherOwnersRouter}/chat/completions`, { body: { model: gateway.router.id, messages: hello } }), denied);
    });

    it('a key scoped to router A used on router B', async () => {
      assert.equal((await chat({ model: gateway.router.id, messages: hello }, { key: scopedKey })).status, 200);
      assertError(await chat({ model: secondRouter, messages: hello }, { key: scopedKey }), denied);
      // The unscoped key of the same owner may use both.
      assert.equal((await chat({ model: secondRouter, messages: hello })).status, 200);
    });
  });

  describe('404 not_found_error', () => {
    it('router_not_found: an unknown router id, and a plain model name, say the model field takes a router id', async () => {
      for (const model of ['rt_doesnotexist0000000000', 'gpt-4o', 'openai:gpt-4o', 'sim:small']) {
        assertError(await chat({ model, messages: hello }), {
          status: 404,
          type: 'not_found_error',
          code: 'router_not_found',
          param: 'model',
          messageIncludes: [model, 'router id', 'not a model name'],
        });
      }
    });

    it('router_not_found: an unknown router id in the path, which wins over the body', async () => {
      assertError(await call('/api/router/rt_unknown/chat/completions', { body: { model: gateway.router.id, messages: hello } }), {
        status: 404,
        type: 'not_found_error',
        code: 'router_not_found',
        param: 'model',
      });
      const response = await call(`/api/router/v1/${gateway.router.id}/chat/completions`, { body: { model: 'rt_unknown', messages: hello } });
      assert.equal(response.status, 200, response.text);
    });

    it('agent_not_found: model "agent:<name>"', async () => {
      assertError(await chat({ model: 'agent:research-assistant', messages: hello }), {
        status: 404,
        type: 'not_found_error',
        code: 'agent_not_found',
        param: 'model',
        messageIncludes: ['research-assistant'],
      });
    });

    it('endpoint_not_found: unknown paths and methods, with or without a key', async () => {
      for (const [method, path] of [
        ['GET', '/nope'],
        ['POST', '/api/router/v1/foo'],
        ['POST', '/api/router/v2/chat/completions/extra'],
        ['GET', '/api/router/chat/completions'],
        ['POST', '/v1/chat/completions'],
        ['DELETE', '/api/router/models'],
      ] as const) {
        for (const key of [gateway.apiKey, null]) {
          const response = await call(path, { method, key, ...(method === 'POST' ? { body: { model: gateway.router.id, messages: hello } } : {}) });
          assertError(response, { status: 404, type: 'not_found_error', code: 'endpoint_not_found', messageIncludes: [path] });
        }
      }
    });
  });

  describe('requests refused before routing, in the same error shape', () => {
    const authHeader = () => ['Authorization', `Bearer ${gateway.apiKey}`] as const;

    it('invalid_json: nesting deeper than 128 levels, with no stack trace in the message', async () => {
      const deep = `{"model":"${gateway.router.id}","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
      const error = assertError(await chat(deep), { status: 400, type: 'invalid_request_error', code: 'invalid_json', messageIncludes: ['nested', '128'] });
      assert.doesNotMatch(error.message, /stack/i);
      const fine = `{"model":"${gateway.router.id}","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(100)}${']'.repeat(100)}}`;
      assert.equal((await chat(fine)).status, 200);
    });

    it('a __proto__ key is dropped, never merged into the request', async () => {
      const response = await chat(`{"__proto__":{"model":"${gateway.router.id}","messages":[{"role":"user","content":"hi"}]}}`);
      assertError(response, { status: 400, type: 'invalid_request_error', code: 'missing_required_parameter', param: 'messages' });
      assert.equal(({} as Record<string, unknown>).model, undefined);
    });

    it('invalid_url: a malformed percent-encoding, or a path segment over 100 characters', async () => {
      for (const path of ['/api/router/%E0%A4%A/chat/completions', '/api/router/%zz/chat/completions', '/api/router/models%']) {
        const response = await rawRequest(gateway.origin, { method: 'POST', path, headers: [authHeader(), ['Content-Type', 'application/json']], body: '{}' });
        assertError(response, { status: 400, type: 'invalid_request_error', code: 'invalid_url', messageIncludes: ['percent-encoding'] });
      }
      const long = await rawRequest(gateway.origin, { method: 'POST', path: `/api/router/${'r'.repeat(101)}/chat/completions`, headers: [authHeader()], body: '{}' });
      assertError(long, { status: 400, type: 'invalid_request_error', code: 'invalid_url', messageIncludes: ['100 characters'] });
    });

    it('malformed_http_request: bytes HTTP forbids, bad framing', async () => {
      for (const request of [
        { path: '/api/router/models', headers: [authHeader(), ['X-Bad', 'a\u0001b']] as const },
        { path: '/api/router/mödels', headers: [authHeader()] as const },
        { path: '/api/router/models', headers: [authHeader(), ['Content-Length', 'twelve']] as const },
        { path: '/api/router/models', headers: [authHeader(), ['Transfer-Encoding', 'chunked'], ['Content-Length', '2']] as const, body: '2\r\n{}\r\n0\r\n\r\n' },
      ]) {
        assertError(await rawRequest(gateway.origin, request), { status: 400, type: 'invalid_request_error', code: 'malformed_http_request' });
      }
    });

    it('request_headers_too_large: 431 for a request line and headers over 16 KiB', async () => {
      assertError(await rawRequest(gateway.origin, { path: `/api/router/models?q=${'x'.repeat(20_000)}`, headers: [authHeader()] }), {
        status: 431,
        type: 'invalid_request_error',
        code: 'request_headers_too_large',
      });
    });

    it('expectation_failed: 417 for an Expect header other than 100-continue (which works)', async () => {
      const body = JSON.stringify({ model: gateway.router.id, messages: hello });
      const refused = await rawRequest(gateway.origin, { method: 'POST', path: COMPLETIONS, headers: [authHeader(), ['Expect', 'something-else']], body });
      assertError(refused, { status: 417, type: 'invalid_request_error', code: 'expectation_failed', messageIncludes: ['100-continue'] });
      const continued = await rawRequest(gateway.origin, { method: 'POST', path: COMPLETIONS, headers: [authHeader(), ['Expect', '100-continue']], body });
      assert.equal(continued.status, 200, continued.text);
    });

    it('invalid_request: a Content-Type header that cannot be parsed', async () => {
      assertError(await chat({ model: gateway.router.id, messages: hello }, { headers: { 'content-type': '}}{{;;==' } }), {
        status: 400,
        type: 'invalid_request_error',
        code: 'invalid_request',
        messageIncludes: ['Content-Type'],
      });
    });

    it('any other Content-Type (or none) is read as JSON', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8']) {
        const response = await chat({ model: gateway.router.id, messages: hello }, { headers: { 'content-type': contentType } });
        assert.equal(response.status, 200, `${contentType}: ${response.text}`);
      }
      const bare = await rawRequest(gateway.origin, { method: 'POST', path: COMPLETIONS, headers: [authHeader()], body: JSON.stringify({ model: gateway.router.id, messages: hello }) });
      assert.equal(bare.status, 200, bare.text);
    });
  });

  describe('precedence: 401 before 400 before 404/403', () => {
    it('a missing key wins over a broken body and an unknown router', async () => {
      assertError(await chat('{broken', { key: null }), { status: 401, type: 'authentication_error', code: 'invalid_api_key' });
      assertError(await chat({ model: 'rt_unknown' }, { key: 'mp_bad' }), { status: 401, type: 'authentication_error', code: 'invalid_api_key' });
    });

    it('a broken body wins over an unknown or forbidden router', async () => {
      for (const model of ['rt_unknown', otherOwnersRouter, 'agent:nobody']) {
        assertError(await chat({ model, messages: [] }), { status: 400, type: 'invalid_request_error', code: 'invalid_value', param: 'messages' });
        assertError(await chat({ model, messages: [{ role: 'user' }] }), {
          status: 400,
          type: 'invalid_request_error',
          code: 'missing_required_parameter',
          param: 'messages[0].content',
        });
        assertError(await chat({ model, messages: hello, temperature: 3 }), { status: 400, type: 'invalid_request_error', code: 'invalid_value', param: 'temperature' });
      }
    });
  });

  describe('GET /models, /healthz', () => {
    interface ModelList {
      object: string;
      data: Array<{ id: string; object: string; created: number; owned_by: string }>;
    }

    it('lists exactly the routers the key may use, in OpenAI list shape, at both bases', async () => {
      for (const path of ['/api/router/models', '/api/router/v1/models']) {
        const all = await call(path);
        assert.equal(all.status, 200, all.text);
        const list = all.json as ModelList;
        assert.equal(list.object, 'list');
        assert.deepEqual(list.data.map((entry) => entry.id).sort(), [gateway.router.id, secondRouter].sort());
        for (const entry of list.data) {
          assert.equal(entry.object, 'model');
          assert.ok(Number.isInteger(entry.created) && entry.created > 1_600_000_000);
          assert.equal(typeof entry.owned_by, 'string');
        }
        assert.ok(!list.data.some((entry) => entry.id === otherOwnersRouter));

        const scoped = (await call(path, { key: scopedKey })).json as ModelList;
        assert.deepEqual(scoped.data.map((entry) => entry.id), [gateway.router.id]);
      }
    });

    it('healthz answers without a key', async () => {
      const response = await call('/healthz', { key: null });
      assert.equal(response.status, 200);
      assert.deepEqual(response.json, { status: 'ok' });
    });
  });

  describe('429 rate_limit_error / rate_limit_exceeded', () => {
    it('refuses the third request of a key limited to 2 per minute, with Retry-After and the x-ratelimit headers', async () => {
      const { value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'slow', rpmLimit: 2 });
      const first = await chat({ model: gateway.router.id, messages: hello }, { key: value });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers['x-ratelimit-limit-requests'], '2');
      assert.equal(first.headers['x-ratelimit-remaining-requests'], '1');
      assert.match(first.headers['x-ratelimit-reset-requests'] ?? '', /^(\d+m)?\d+(s|ms)$/);
      const second = await chat({ model: gateway.router.id, messages: hello }, { key: value });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.headers['x-ratelimit-remaining-requests'], '0');

      const third = await chat({ model: gateway.router.id, messages: hello }, { key: value });
      assertError(third, { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', messageIncludes: ['rate limit', '2 requests per minute'] });
      const retryAfter = Number(third.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `retry-after ${third.headers['retry-after']}`);
      assert.equal(third.headers['x-ratelimit-limit-requests'], '2');
      assert.equal(third.headers['x-ratelimit-remaining-requests'], '0');
      assert.match(third.headers['x-ratelimit-reset-requests'] ?? '', /^(\d+m)?\d+(s|ms)$/);

      // The limit is per key: the owner's other key is untouched.
      assert.equal((await chat({ model: gateway.router.id, messages: hello })).status, 200);
    });
  });
});

describe('413 invalid_request_error / request_too_large', () => {
  let gateway: Gateway;
  const call = caller(() => gateway);
  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_BODY_LIMIT_BYTES: '2048' } });
  });
  after(async () => {
    await gateway.close();
  });

  it('refuses a body over MODELPORT_BODY_LIMIT_BYTES, declared or chunked', async () => {
    const body = { model: gateway.router.id, messages: [{ role: 'user', content: 'x'.repeat(3000) }] };
    assertError(await call(COMPLETIONS, { body }), { status: 413, type: 'invalid_request_error', code: 'request_too_large', messageIncludes: ['2048 bytes'] });

    const text = JSON.stringify(body);
    const chunked = `${text.length.toString(16)}\r\n${text}\r\n0\r\n\r\n`;
    const response = await rawRequest(gateway.origin, {
      method: 'POST',
      path: COMPLETIONS,
      headers: [['Authorization', `Bearer ${gateway.apiKey}`], ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']],
      body: chunked,
    });
    assertError(response, { status: 413, type: 'invalid_request_error', code: 'request_too_large' });
  });

  it('still takes a body under the limit', async () => {
    const response = await call(COMPLETIONS, { body: { model: gateway.router.id, messages: [{ role: 'user', content: 'x'.repeat(1500) }] } });
    assert.equal(response.status, 200, response.text);
  });

  it('checks the key first', async () => {
    const body = { model: gateway.router.id, messages: [{ role: 'user', content: 'x'.repeat(3000) }] };
    assertError(await call(COMPLETIONS, { body, key: null }), { status: 401, type: 'authentication_error', code: 'invalid_api_key' });
  });
});

describe('503 service_unavailable / all_models_unavailable', () => {
  let gateway: Gateway;
  before(async () => {
    const closedPort = await findClosedPort();
    gateway = await startGateway({
      models: ['openai:gpt-4o-mini', 'openai:gpt-4.1-nano'],
      env: { OPENAI_BASE_URL: `http://127.0.0.1:${closedPort}/v1`, OPENAI_API_KEY: 'sk-test-not-real', MODELPORT_UPSTREAM_CONNECT_TIMEOUT_MS: '1000' },
    });
  });
  after(async () => {
    await gateway.close();
  });

  it('answers 503 with Retry-After when every model of the router is unreachable', async () => {
    const response = await caller(() => gateway)(COMPLETIONS, { body: { model: gateway.router.id, messages: hello } });
    assertError(response, { status: 503, type: 'service_unavailable', code: 'all_models_unavailable', messageIncludes: ['unavailable'] });
    const retryAfter = Number(response.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `retry-after ${response.headers['retry-after']}`);
    assert.doesNotMatch(response.text, /127\.0\.0\.1|OPENAI_BASE_URL|sk-test/, 'the upstream address and credentials stay private');
  });

  it('answers the same JSON 503 (not an event stream) when stream is true and no model could start', async () => {
    const response = await caller(() => gateway)(COMPLETIONS, { body: { model: gateway.router.id, messages: hello, stream: true } });
    assertError(response, { status: 503, type: 'service_unavailable', code: 'all_models_unavailable' });
    assert.ok(Number(response.headers['retry-after']) >= 1);
  });
});

/** A server from hand-built dependencies: a known key, an in-memory log, and a router directory the test controls. */
async function startHandBuiltServer(routers: AppDependencies['routers'], options: ServerOptions = {}) {
  const token = generateApiKey();
  const logLines: string[] = [];
  const key: ApiKeyRecord = {
    id: 'key_test',
    ownerId: 'usr_test',
    name: 'test',
    displayPrefix: token.displayPrefix,
    routerIds: undefined,
    rpmLimit: undefined,
    createdAt: Date.now(),
    lastUsedAt: undefined,
    expiresAt: undefined,
    revokedAt: undefined,
  };
  const usage: UsageRecorder = {
    record: () => undefined,
    flush: async () => undefined,
    close: async () => undefined,
    stats: () => ({ queued: 0, dropped: 0, written: 0 }),
  };
  const dispatcher = createUpstreamDispatcher(defaultTimeouts);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const server = await createServer({
    logger: pino({ level: 'trace' }, sink),
    now: Date.now,
    authenticator: createKeyAuthenticator(
      {
        findByHash: async (hash: string) => (hash === token.hash ? key : undefined),
        create: () => Promise.reject(new Error('unused')),
        listByOwner: async () => [],
        revoke: async () => false,
        touchLastUsed: async () => undefined,
      },
      Date.now,
    ),
    rateLimiter: createInProcessRateLimiter(),
    routers,
    catalog: loadShippedCatalog(),
    ownerCatalogs: shippedCatalogOnly(loadShippedCatalog()),
    providers: serverWideProvidersOnly(createProviderRegistry({ sim: { timeScale: 0, timing: () => ({ ttftMs: 0, tokensPerSecond: 1000 }) } }, { dispatcher, timeouts: defaultTimeouts })),
    usage,
    settings: { bodyLimitBytes: 1_000_000, defaultRpm: 1000, requireHttps: false, trustedProxies: [], maxAttempts: 3 },
  }, options);
  server.addHook('onClose', async () => dispatcher.close());
  await server.listen({ port: 0, host: '127.0.0.1' });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { server, origin: `http://127.0.0.1:${address.port}`, token, logLines };
}

describe('500 api_error / internal_error', () => {
  let built: Awaited<ReturnType<typeof startHandBuiltServer>>;
  const secret = 'db password hunter2 at /srv/secret/path.ts:42';

  before(async () => {
    built = await startHandBuiltServer({
      find: () => Promise.reject(new Error(secret)),
      listByOwner: () => {
        throw new TypeError(secret);
      },
      invalidate: () => undefined,
    });
  });
  after(async () => {
    await built.server.close();
  });

  it('answers the generic 500 and never leaks the internal error', async () => {
    for (const [method, path, body] of [
      ['POST', COMPLETIONS, JSON.stringify({ model: 'rt_any', messages: hello })],
      ['GET', '/api/router/models', undefined],
    ] as const) {
      const response = await readFetchResponse(
        await fetch(`${built.origin}${path}`, {
          method,
          headers: { authorization: `Bearer ${built.token.value}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body } : {}),
        }),
      );
      assertError(response, { status: 500, type: 'api_error', code: 'internal_error', messageIncludes: ['retry'] });
      assert.ok(!response.text.includes('hunter2'), response.text);
      assert.ok(!response.text.includes('secret'), response.text);
      assert.ok(!/at .*\.ts:\d+/.test(response.text), response.text);
      assert.ok(!response.text.includes('TypeError'), response.text);
    }
    // The operator does see it, in the log.
    assert.ok(built.logLines.some((line) => line.includes('hunter2')), 'the internal error is logged for the operator');
    assert.ok(!built.logLines.some((line) => line.includes(built.token.value)), 'the key is never logged');
  });
});

describe('503 service_unavailable / server_shutting_down', () => {
  it('answers a request that arrives while the server closes with our 503 body and Connection: close', async () => {
    const released = deferred();
    const firstArrived = deferred();
    const built = await startHandBuiltServer({
      find: async () => {
        firstArrived.resolve();
        await released.promise;
        return undefined;
      },
      listByOwner: async () => [],
      invalidate: () => undefined,
    });
    const body = JSON.stringify({ model: 'rt_slow', messages: hello });
    const request = (connection: string) =>
      `POST ${COMPLETIONS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${built.token.value}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: ${connection}\r\n\r\n${body}`;
    // Two requests on one keep-alive connection: the first is in flight when close() starts, the second arrives after.
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(built.origin).port) });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(request('keep-alive'));
    await firstArrived.promise;
    const closed = built.server.close();
    for (const started = Date.now(); built.server.server.listening; ) {
      if (Date.now() - started > 2000) assert.fail('the server did not start closing');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Whether or not the first has finished by then, the server is closing when the second is read.
    socket.write(request('close'));
    released.resolve();
    await ended;
    await closed;

    const responses = splitResponses(Buffer.concat(received));
    assert.equal(responses.length, 2, Buffer.concat(received).toString('utf8'));
    assert.equal(responses[0]?.status, 404);
    const second = responses[1];
    assert.ok(second);
    assertError(second, { status: 503, type: 'service_unavailable', code: 'server_shutting_down', messageIncludes: ['retry'] });
    assert.equal(second.headers.connection, 'close');
    assert.equal(second.headers['retry-after'], '1');
  });
});

describe('408 invalid_request_error / request_timeout', () => {
  it('answers a client that never finishes sending its body, in our error shape', async () => {
    const built = await startHandBuiltServer({ find: async () => undefined, listByOwner: async () => [], invalidate: () => undefined }, { requestTimeoutMs: 300 });
    try {
      const started = performance.now();
      const response = await rawRequest(built.origin, {
        method: 'POST',
        path: COMPLETIONS,
        // 100 bytes announced, 2 sent.
        headers: [['Authorization', `Bearer ${built.token.value}`], ['Content-Type', 'application/json'], ['Content-Length', '100']],
        body: '{}',
      });
      assertError(response, { status: 408, type: 'invalid_request_error', code: 'request_timeout' });
      assert.ok(performance.now() - started < 3000);
    } finally {
      await built.server.close();
    }
  });
});

/** Responses that came back one after another on a single connection (each framed by Content-Length). */
function splitResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const length = Number(headers['content-length'] ?? 0);
    const text = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, text, json: text === '' ? undefined : (JSON.parse(text) as unknown) });
    rest = rest.subarray(end + 4 + length);
  }
  return responses;
}

/** A promise and the function that settles it (Promise.withResolvers is ES2024, beyond our lib). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** What a hand edit of the database must do for running servers to notice: bump the change counter. */
async function bumpChanges(gateway: Gateway): Promise<void> {
  await bumpChangeCounter(gateway.app.storage.db);
  await gateway.app.changes.poll();
}

/** A loopback port that was just free and is now closed: connections to it are refused. */
async function findClosedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}
