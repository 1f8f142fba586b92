import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

interface Candidate {
  model: string;
  predictedQuality?: number;
}

const PROMPT = 'Which of the following best describes the function of ribosomes?\nA. protein synthesis\nB. lipid storage\nC. DNA replication\nD. cell division\nAnswer:';

describe('auto router calibrated from labelled examples, end to end', () => {
  let gateway: Gateway;

  before(async () => {
    gateway = await startGateway({ models: ['sim:small', 'sim:medium', 'sim:large'], strategy: 'auto' });
  });
  after(async () => {
    await gateway.close();
  });

  async function candidates(): Promise<Candidate[]> {
    const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: gateway.router.id, messages: [{ role: 'user', content: PROMPT }] }),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { _meta: { routing: { candidates: Candidate[] } } };
    return body._meta.routing.candidates;
  }

  it('a running server routes with the abilities an owner calibrates', async () => {
    const before = await candidates();
    const smallBefore = before.find((candidate) => candidate.model === 'sim:small')?.predictedQuality ?? 1;
    // Examples on which the cheapest model is always right and the others often wrong.
    const prompts = Array.from({ length: 30 }, (_, i) => `Question ${i}: which of the following is true of cells?\nA. ${i}\nB. yes\nC. no\nD. maybe\nAnswer:`);
    const { router } = await gateway.admin.calibrateRouter({
      ownerEmail: gateway.ownerEmail,
      id: gateway.router.id,
      examples: {
        prompts,
        subjects: prompts.map(() => undefined),
        scores: new Map([
          ['sim:small', Float64Array.from(prompts, () => 1)],
          ['sim:large', Float64Array.from(prompts, (_, i) => i % 2)],
        ]),
      },
    });
    assert.deepEqual(Object.keys(router.settings.autoFit?.models ?? {}).sort(), ['sim:large', 'sim:small']);
    // Servers pick router changes up within MODELPORT_CHANGE_POLL_MS (50 ms here).
    let after = before;
    for (let tries = 0; tries < 40; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await candidates();
      if ((after.find((candidate) => candidate.model === 'sim:small')?.predictedQuality ?? 0) !== smallBefore) break;
    }
    const smallAfter = after.find((candidate) => candidate.model === 'sim:small')?.predictedQuality ?? 0;
    assert.ok(smallAfter > smallBefore, `sim:small ${smallBefore} → ${smallAfter}`);
    assert.equal(after[0]?.model, 'sim:small');
    assert.ok(smallAfter >= 0.8);
  });
});
