import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

describe('smoke: a routed answer through the openai SDK on the offline simulator', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(async () => {
    await gateway.close();
  });

  for (const suffix of ['', '/v1']) {
    it(`answers with _meta at base${suffix}`, async () => {
      const client = new OpenAI({ apiKey: gateway.apiKey, baseURL: `${gateway.baseUrl}${suffix}` });
      const completion = await client.chat.completions.create({
        model: gateway.router.id,
        messages: [{ role: 'user', content: 'Hello there' }],
      });
      assert.equal(completion.object, 'chat.completion');
      // cost_optimized over sim:small and sim:medium picks the cheaper one.
      assert.equal(completion.model, 'sim:small');
      assert.match(completion.choices[0]?.message.content ?? '', /Hello there/);
      const meta = (completion as unknown as { _meta: Record<string, unknown> })._meta;
      assert.equal(meta.modelUsed, 'sim:small');
      assert.equal(meta.routerDecision, 'cost_optimized');
      assert.equal(typeof meta.cost, 'number');
      assert.ok((meta.cost as number) > 0);
      assert.ok((meta.carbonGrams as number) > 0);
      // Manufacturing emissions are reported apart, never folded into carbonGrams.
      assert.equal(typeof meta.embodiedCarbonGrams, 'number');
      assert.equal(completion.usage?.total_tokens, (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0));
    });
  }
});
