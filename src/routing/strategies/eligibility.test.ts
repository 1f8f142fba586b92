import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../providers/contract.js';
import type { ModelHealthView, RouterSettings } from '../routing-contract.js';
import { FIXTURE_IDS, T0, fakeHealth, fixtureCatalog, userRequest } from '../../../test/support/routing-fixtures.js';
import { filterEligible } from './eligibility.js';
import { profileRequest } from './estimates.js';

function run(request: ChatRequest, options: { settings?: RouterSettings; health?: ModelHealthView; now?: number; modelIds?: readonly string[] } = {}) {
  return filterEligible({
    modelIds: options.modelIds ?? FIXTURE_IDS,
    catalog: fixtureCatalog,
    profile: profileRequest(request),
    settings: options.settings ?? {},
    health: options.health,
    now: options.now ?? T0,
  });
}

const eligibleIds = (result: ReturnType<typeof run>) => result.eligible.map((candidate) => candidate.model.id);

describe('eligibility', () => {
  it('keeps every model that can serve a plain request, in the owner\'s order', () => {
    const result = run(userRequest('Hello'));
    assert.deepEqual(eligibleIds(result), FIXTURE_IDS);
    assert.deepEqual(result.dropped, []);
  });

  it('drops a model whose context window cannot hold the prompt plus max_tokens', () => {
    const result = run(userRequest('Hello', { max_tokens: 10_000 }));
    assert.deepEqual(result.dropped.map((drop) => [drop.model, drop.code]), [['acme:tiny', 'context_window']]);
    assert.match(result.dropped[0]?.reason ?? '', /^context window 8000 < \d+ tokens needed$/);
  });

  it('drops models without tools or images when the request needs them', () => {
    const tools = [{ type: 'function' as const, function: { name: 'lookup' } }];
    assert.deepEqual(run(userRequest('x', { tools })).dropped, [{ model: 'acme:tiny', code: 'tools', reason: 'does not support tools' }]);
    const image: ChatRequest = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] };
    assert.deepEqual(run(image).dropped, [{ model: 'acme:tiny', code: 'vision', reason: 'does not accept images' }]);
  });

  it('drops models over the router\'s cost ceiling, by expected cost', () => {
    // 256 expected output tokens: big costs about $0.0039, the others well under $0.001.
    const result = run(userRequest('Hello'), { settings: { maxCostPerRequestUsd: 0.001 } });
    assert.deepEqual(result.dropped.map((drop) => drop.model), ['acme:big']);
    assert.match(result.dropped[0]?.reason ?? '', /^expected \$0\.0039 > the router's ceiling of \$0\.0010$/);
  });

  it('drops a model health calls unavailable, and takes it back when the injected clock passes its time', () => {
    const health = fakeHealth({ downUntil: new Map([['acme:mid', T0 + 30_000]]) });
    const down = run(userRequest('Hello'), { health, now: T0 });
    assert.deepEqual(down.dropped, [
      { model: 'acme:mid', code: 'unavailable', reason: 'circuit open after repeated failures, until 2026-01-01T00:00:30.000Z', availableAgainAt: T0 + 30_000 },
    ]);
    assert.deepEqual(run(userRequest('Hello'), { health, now: T0 + 30_000 }).dropped, []);
  });

  it('reports the first reason that applies, health last', () => {
    const health = fakeHealth({ downUntil: new Map([['acme:tiny', T0 + 1]]) });
    const result = run(userRequest('Hello', { max_tokens: 10_000 }), { health });
    assert.equal(result.dropped[0]?.code, 'context_window');
  });

  it('drops a model the catalog does not know', () => {
    assert.deepEqual(run(userRequest('Hello'), { modelIds: ['acme:mid', 'nope:gone'] }).dropped.map((drop) => drop.code), ['unknown_model']);
  });
});
