import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRandom } from '../../src/routing/auto/folds.js';
import { requestedModel, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * The feedback loop end to end: an `auto` router over a cheap and a strong model, where the fake upstream's cheap
 * model gets every multiplication wrong and every translation right. The test grades each answer itself (the
 * product is checked, not assumed), posts the grade to `/feedback`, and waits for the background refit. Afterwards
 * the router must send multiplications to the strong model and keep translations on the cheap one.
 */

const CHEAP = 'openai:gpt-4o-mini';
const STRONG = 'openai:gpt-4o';
const WORDS = ['house', 'water', 'bread', 'friend', 'garden', 'window', 'morning', 'river', 'school', 'letter', 'summer', 'mountain'];

interface RoutedAnswer {
  readonly id: string;
  readonly model: string;
  readonly explored: boolean;
  readonly content: string;
}

function lastUserText(request: RecordedRequest): string {
  const body = request.body as { messages?: { role: string; content: string }[] };
  const messages = body.messages ?? [];
  return messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
}

describe('auto router learns from feedback, end to end', () => {
  let fake: FakeOpenAI;
  let gateway: Gateway;
  const random = createRandom(7);

  const multiplication = () => {
    const a = 12 + Math.floor(random() * 80);
    const b = 12 + Math.floor(random() * 80);
    return { prompt: `What is ${a} * ${b}? Reply with the number only.`, expected: String(a * b) };
  };
  const translation = () => {
    const word = WORDS[Math.floor(random() * WORDS.length)] ?? 'house';
    return { prompt: `Translate the English word "${word}" into French. Reply with one word.`, expected: `fr:${word}` };
  };

  before(async () => {
    fake = await startFakeOpenAI();
    fake.setHandler((request) => {
      const text = lastUserText(request);
      const product = /What is (\d+) \* (\d+)\?/.exec(text);
      const word = /word "(\w+)"/.exec(text);
      const cheap = requestedModel(request) === 'gpt-4o-mini';
      if (product !== null) {
        const right = Number(product[1]) * Number(product[2]);
        return { type: 'answer', content: String(cheap ? right + 10 : right) };
      }
      return { type: 'answer', content: `fr:${word?.[1] ?? 'unknown'}` };
    });
    gateway = await startGateway({
      models: [CHEAP, STRONG],
      strategy: 'auto',
      env: {
        OPENAI_BASE_URL: fake.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        MODELPORT_DEFAULT_RPM: '100000',
        MODELPORT_ROUTER_REFIT_INTERVAL_MS: '100',
      },
    });
    // A target both models meet before any label: the router starts by sending everything to the cheap one.
    // A router without labels does not explore by default.
    await gateway.admin.updateRouter({ ownerEmail: gateway.ownerEmail, id: gateway.router.id, settings: { qualityTarget: 0.5 } });
    await new Promise((resolve) => setTimeout(resolve, 150));
  });
  after(async () => {
    await gateway.close();
    await fake.close();
  });

  async function ask(prompt: string): Promise<RoutedAnswer> {
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: gateway.router.id, messages: [{ role: 'user', content: prompt }] }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const body = (await response.json()) as {
      choices: { message: { content: string } }[];
      _meta: { requestId: string; modelUsed: string; routing: { explored?: boolean } };
    };
    return { id: body._meta.requestId, model: body._meta.modelUsed, explored: body._meta.routing.explored === true, content: body.choices[0]?.message.content ?? '' };
  }

  async function feedback(requestId: string, score: number): Promise<void> {
    const response = await fetch(`${gateway.baseUrl}/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: requestId, score }),
    });
    assert.equal(response.status, 200, await response.clone().text());
  }

  async function fitLabels(): Promise<number> {
    const routers = await gateway.admin.listRouters(gateway.ownerEmail);
    return routers.find((router) => router.id === gateway.router.id)?.settings?.autoFit?.labels ?? 0;
  }

  it('sends the kind the cheap model fails to the strong model after bounded feedback, and keeps the cheap one for the rest', async (t) => {
    const before = { multiplication: await ask(multiplication().prompt), translation: await ask(translation().prompt) };
    assert.equal(before.multiplication.model, CHEAP, 'before any label the cheap model meets the target');
    assert.equal(before.translation.model, CHEAP);
    assert.equal(before.multiplication.explored || before.translation.explored, false);
    // Some exploration while it learns, so the strong model gets labels too.
    await gateway.admin.updateRouter({ ownerEmail: gateway.ownerEmail, id: gateway.router.id, settings: { exploration: 0.2 } });
    await new Promise((resolve) => setTimeout(resolve, 150));

    let given = 0;
    const budget = 160;
    for (let round = 0; round < 8 && given < budget; round += 1) {
      for (let i = 0; i < 10; i += 1) {
        for (const task of [multiplication(), translation()]) {
          const answer = await ask(task.prompt);
          await feedback(answer.id, answer.content.trim() === task.expected ? 1 : 0);
          given += 1;
        }
      }
      // The refit runs in the background; wait until it has read this round's labels and the server has the fit.
      for (let tries = 0; tries < 100 && (await fitLabels()) < given; tries += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 150));
      const probe = await ask(multiplication().prompt);
      if (!probe.explored && probe.model === STRONG) break;
    }
    assert.ok(given <= budget, `${given} feedback items`);
    t.diagnostic(`learned after ${given} feedback items`);

    const routed = { multiplication: new Map<string, number>(), translation: new Map<string, number>() };
    for (let i = 0; i < 20; i += 1) {
      for (const [kind, task] of [['multiplication', multiplication()], ['translation', translation()]] as const) {
        const answer = await ask(task.prompt);
        if (answer.explored) continue;
        routed[kind].set(answer.model, (routed[kind].get(answer.model) ?? 0) + 1);
      }
    }
    assert.ok((routed.multiplication.get(STRONG) ?? 0) > 0, `multiplications: ${JSON.stringify([...routed.multiplication])}`);
    assert.equal(routed.multiplication.get(CHEAP) ?? 0, 0, `multiplications: ${JSON.stringify([...routed.multiplication])}`);
    assert.ok((routed.translation.get(CHEAP) ?? 0) > 0, `translations: ${JSON.stringify([...routed.translation])}`);
    assert.equal(routed.translation.get(STRONG) ?? 0, 0, `translations: ${JSON.stringify([...routed.translation])}`);
  });
});
