import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadShippedCatalog } from '../catalog/catalog.js';
import { AgentDefinitionError, checkAgentDefinition, DEFAULT_AGENT_LIMITS, type DefinitionContext } from './agent-definition.js';

const context: DefinitionContext = {
  findRouter: async (id) => (id === 'rt_mine' ? { models: ['sim:small'] } : id === 'rt_vectors' ? { models: ['sim:embed-small'] } : undefined),
  catalog: loadShippedCatalog(),
  limits: DEFAULT_AGENT_LIMITS,
};

async function refusal(definition: unknown): Promise<AgentDefinitionError> {
  try {
    await checkAgentDefinition(definition, context);
  } catch (error) {
    assert.ok(error instanceof AgentDefinitionError, String(error));
    return error;
  }
  assert.fail('the definition was accepted');
}

const step = (name: string, prompt: string, extra: Record<string, unknown> = {}) => ({ name, router: 'rt_mine', prompt, ...extra });

describe('checkAgentDefinition', () => {
  it('plans dependencies from needs and from the templates, and makes the last step the join', async () => {
    const plan = await checkAgentDefinition(
      { name: 'fan', steps: [step('a', '{{input}}'), step('b', '{{messages}}'), step('c', '{{steps.a.output}}'), step('d', 'done')] },
      context,
    );
    const deps = Object.fromEntries(plan.steps.map((entry) => [entry.definition.name, [...entry.dependsOn].sort()]));
    assert.deepEqual(deps, { a: [], b: [], c: ['a'], d: ['a', 'b', 'c'] });
    assert.equal(plan.finalStep, 'd');
    assert.deepEqual(plan.routerIds, ['rt_mine']);
  });

  it('names the step and field of each mistake', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ name: 'Bad Name', steps: [step('a', 'x')] }, 'name', /slug/],
      [{ name: 'x', steps: [] }, 'steps', /at least one step/],
      [{ name: 'x', steps: [step('a', 'x', { colour: 'red' })] }, 'steps[0]', /colour/],
      [{ name: 'x', steps: [step('a', 'x'), step('a', 'y')] }, 'steps[1].name', /used twice/],
      [{ name: 'x', steps: [step('a', '{{ steps.a.output }}')] }, 'steps[0]', /depends on itself/],
      [{ name: 'x', steps: [step('a', 'x', { needs: ['zz'] })] }, 'steps[0].needs[0]', /no step is named "zz"/],
      [{ name: 'x', steps: [step('a', 'x', { system: 'You are {{role}}' })] }, 'steps[0].system', /unknown variable/],
      [{ name: 'x', steps: [step('a', 'x', { temperature: 3 })] }, 'steps[0].temperature', /./],
      [{ name: 'x', steps: [step('a', 'x')], limits: { max_cost_usd: 5 } }, 'limits.max_cost_usd', /above this server's limit of 1/],
      [{ name: 'x', steps: [{ name: 'a', model: 'gpt-4o', prompt: 'x' }] }, 'steps[0].model', /provider:model/],
      [{ name: 'x', steps: [step('a', 'x', { router: 'rt_theirs' })] }, 'steps[0].router', /no router "rt_theirs"/],
    ];
    for (const [definition, path, message] of cases) {
      const error = await refusal(definition);
      assert.equal(error.path, path, error.message);
      assert.match(error.message, message);
    }
  });

  it('refuses a cycle through needs, showing it', async () => {
    const error = await refusal({ name: 'loop', steps: [step('a', 'x', { needs: ['b'] }), step('b', 'x', { needs: ['a'] }), step('c', 'end')] });
    assert.equal(error.path, 'steps');
    assert.match(error.message, /cycle: (a → b → a|b → a → b)/);
  });

  it('accepts lower limits and the JSON fields of a step with a JSON response_format', async () => {
    const plan = await checkAgentDefinition(
      {
        name: 'json',
        steps: [step('p', 'x', { response_format: { type: 'json_object' } }), step('q', '{{steps.p.json.a.b}}')],
        limits: { max_steps: 5, max_parallel: 2 },
      },
      context,
    );
    assert.equal(plan.limits.maxSteps, 5);
    assert.equal(plan.limits.maxParallel, 2);
    assert.equal(plan.limits.timeoutMs, DEFAULT_AGENT_LIMITS.timeoutMs);
  });

  it('refuses a step on an embedding router or an embedding model: a step sends a chat request', async () => {
    const onRouter = await refusal({ name: 'vectors', steps: [{ name: 'a', router: 'rt_vectors', prompt: '{{input}}' }] });
    assert.deepEqual([onRouter.path, /serves embeddings/.test(onRouter.message)], ['steps[0].router', true]);
    const onModel = await refusal({ name: 'vectors', steps: [{ name: 'a', model: 'openai:text-embedding-3-small', prompt: '{{input}}' }] });
    assert.deepEqual([onModel.path, /embedding model/.test(onModel.message)], ['steps[0].model', true]);
  });
});
