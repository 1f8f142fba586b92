import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyMayRun, keyRunRefusal } from './agent-access.js';

const definition = (...steps: unknown[]) => ({ name: 'research', steps });

describe('keyMayRun / keyRunRefusal', () => {
  it('lets an unrestricted key run anything, even a definition it cannot read', () => {
    assert.equal(keyMayRun(definition({ name: 'a', model: 'sim:small' }), undefined), true);
    assert.equal(keyRunRefusal('research', null, undefined), undefined);
  });

  it('lets a restricted key run an agent whose every step goes through one of its routers', () => {
    const agent = definition({ name: 'a', router: 'rt_a' }, { name: 'b', router: 'rt_b' });
    assert.equal(keyMayRun(agent, ['rt_b', 'rt_a']), true);
    assert.equal(keyMayRun(agent, ['rt_a']), false);
    assert.equal(keyMayRun(agent, []), false);
  });

  it('names the first router the key may not use, before any direct model step', () => {
    const refused = keyRunRefusal('research', definition({ name: 'a', model: 'sim:small' }, { name: 'b', router: 'rt_b' }), ['rt_a']);
    assert.equal(refused?.status, 403);
    assert.equal(refused?.code, 'router_access_denied');
    assert.match(refused?.message ?? '', /"rt_b"/);
  });

  it('refuses a step that calls a model directly, naming the step', () => {
    const refused = keyRunRefusal('research', definition({ name: 'a', router: 'rt_a' }, { name: 'fixed', model: 'sim:small' }), ['rt_a']);
    assert.equal(refused?.code, 'router_access_denied');
    assert.match(refused?.message ?? '', /step "fixed" of agent "research" calls a model directly/);
  });

  it('refuses a restricted key a definition it cannot read as steps', () => {
    for (const malformed of [null, 'text', {}, { steps: 'x' }, { steps: [] }, definition('rt_a'), definition({ name: 'a', router: 42 })]) {
      assert.equal(keyMayRun(malformed, ['rt_a']), false, JSON.stringify(malformed));
    }
  });
});
