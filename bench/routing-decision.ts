/**
 * Routing decision time: one `planRoute` (request profile and prompt token
 * count, eligibility, the strategy's ranking; `auto` also runs its predictor
 * on the prompt, makes its prompt vector and, with exploration, samples) plus the
 * `_meta.routing` it reports, for every strategy, on prompts of about 100,
 * 1,000 and 4,000 tokens, over a router of nine catalog models; `auto+fit` is
 * `auto` with a router fit (router-fit.ts) for all nine. In-process, no I/O:
 * this is the routing share of the gateway's added latency.
 *
 *   npm run bench:routing [-- --calls 20000]
 */
import { parseArgs } from 'node:util';
import { countTextTokens } from '../src/providers/token-counter.js';
import { createRandom } from '../src/routing/auto/folds.js';
import { createAutoPredictor } from '../src/routing/auto/auto-predictor.js';
import { createPromptVectorizer } from '../src/routing/auto/prompt-vector.js';
import { fitRouter, type RouterLabel } from '../src/routing/auto/router-fit.js';
import { loadShippedAutoModel } from '../src/routing/auto/shipped-model.js';
import type { RouterSettings } from '../src/routing/routing-contract.js';
import { loadShippedCatalog } from '../src/catalog/catalog.js';
import { planRoute, routingMeta } from '../src/routing/plan-route.js';
import { STRATEGY_NAMES } from '../src/routing/strategies/routing-strategy.js';
import { createStrategyRegistry } from '../src/routing/strategies/strategy-registry.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '20000' } } });
const calls = Number(values.calls);
if (!Number.isInteger(calls) || calls < 100) throw new Error('--calls takes an integer ≥ 100');

const WORDS = (
  'the of and a to in is which following that for it as with was on be by this are at from or an not have has had ' +
  'would could should may might will can energy market court contract patient cell function value system theory ' +
  'process model data result effect increase decrease rate price cost law state policy government economic social ' +
  'question answer statement evidence argument reason because therefore however although between during after ' +
  'before under over within without against among through temperature pressure velocity acceleration molecule ' +
  'protein enzyme species population equation integral derivative matrix vector probability distribution sample'
).split(' ');

/** A prompt of about `chars` characters: prose with numbers and formulas, then a question and four options. */
function syntheticPrompt(chars: number, random: () => number): string {
  const word = () => (random() < 0.04 ? String(Math.floor(random() * 2000)) : (WORDS[Math.floor(random() * WORDS.length)] ?? 'the'));
  const words: string[] = [];
  let length = 0;
  while (length < chars - 80) {
    const next = random() < 0.08 ? `${word()}.` : random() < 0.01 ? `(x^2 + ${word()})` : word();
    words.push(next);
    length += next.length + 1;
  }
  const options = ['A', 'B', 'C', 'D'].map((letter) => `${letter}. ${word()} ${word()}`).join('\n');
  return `${words.join(' ')}\nWhich of the following is true?\n${options}\nAnswer:`;
}

const percentile = (sorted: Float64Array, q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

const catalog = loadShippedCatalog();
const strategies = createStrategyRegistry();
const models = [
  'openai:gpt-4o-mini',
  'openai:gpt-4o',
  'openai:gpt-4.1-nano',
  'anthropic:claude-sonnet-4-5',
  'anthropic:claude-haiku-4-5',
  'gemini:gemini-2.5-flash',
  'mistral:mistral-small-latest',
  'deepseek:deepseek-chat',
  'groq:llama-3.1-8b-instant',
].filter((id) => catalog.get(id) !== undefined);
const random = createRandom(7);

/** A router fit for every model, from labels on synthetic prompts (a planted rule: the cheaper half fail long ones). */
function benchFit(): RouterSettings['autoFit'] {
  const autoModel = loadShippedAutoModel();
  const vectorize = createPromptVectorizer(autoModel);
  const predictor = createAutoPredictor(autoModel);
  const labels: RouterLabel[] = [];
  for (let k = 0; k < 400; k += 1) {
    const chars = 200 + Math.floor(random() * 6000);
    const vector = vectorize(syntheticPrompt(chars, random));
    models.forEach((model, index) => {
      const right = index % 2 === 0 && chars > 3000 ? random() < 0.3 : random() < 0.8;
      labels.push({ vector, model, score: right ? 1 : 0 });
    });
  }
  return fitRouter({
    labels,
    priorAbility: (id) => {
      const entry = catalog.get(id);
      if (entry === undefined) throw new Error(`no catalog model ${id}`);
      return predictor.abilityOf(entry);
    },
  });
}
const fitStarted = performance.now();
const autoFit = benchFit();
process.stdout.write(`Router fit for auto+fit: ${autoFit?.labels ?? 0} labels, ${models.length} models, ${(performance.now() - fitStarted).toFixed(0)} ms\n`);
const cells: { name: string; strategy: string; settings: RouterSettings }[] = [
  ...STRATEGY_NAMES.map((strategy) => ({ name: strategy, strategy, settings: {} })),
  ...(autoFit === undefined ? [] : [{ name: 'auto+fit', strategy: 'auto', settings: { autoFit } }]),
];
const rows: { strategy: string; tokens: number; p50: number; p99: number; mean: number }[] = [];
process.stdout.write(`Routing decision time: planRoute + _meta.routing over ${models.length} models, ${calls} calls per cell, Node ${process.version}\n\n`);
process.stdout.write('STRATEGY            TOKENS  CHARS   p50 µs  p99 µs  mean µs\n');
for (const tokens of [100, 1000, 4000]) {
  // Sized in characters, then rescaled once so the o200k token count matches.
  const probe = syntheticPrompt(tokens * 4, random);
  const charsPerToken = probe.length / countTextTokens(probe);
  const prompts = Array.from({ length: 64 }, () => syntheticPrompt(Math.round(tokens * charsPerToken), random));
  const chars = Math.round(prompts.reduce((sum, prompt) => sum + prompt.length, 0) / prompts.length);
  for (const { name, strategy, settings } of cells) {
    const router = { strategy, models, settings };
    const decide = (prompt: string) => {
      const plan = planRoute({
        router,
        request: { messages: [{ role: 'user', content: prompt }] },
        catalog,
        health: undefined,
        now: Date.now(),
        random: Math.random,
        strategies,
      });
      return routingMeta(plan).candidates.length;
    };
    for (let k = 0; k < 2000; k += 1) decide(prompts[k % prompts.length] ?? '');
    const times = new Float64Array(calls);
    let sink = 0;
    for (let k = 0; k < calls; k += 1) {
      const prompt = prompts[k % prompts.length] ?? '';
      const started = process.hrtime.bigint();
      sink += decide(prompt);
      times[k] = Number(process.hrtime.bigint() - started) / 1000;
    }
    if (sink !== calls * models.length) throw new Error(`expected every model to be a candidate, got ${sink / calls} on average`);
    times.sort();
    const row = { strategy: name, tokens, p50: percentile(times, 0.5), p99: percentile(times, 0.99), mean: times.reduce((sum, value) => sum + value, 0) / calls };
    rows.push(row);
    process.stdout.write(
      `${name.padEnd(18)}  ${String(tokens).padStart(6)}  ${String(chars).padStart(5)}  ${row.p50.toFixed(1).padStart(6)}  ${row.p99.toFixed(1).padStart(6)}  ${row.mean.toFixed(1).padStart(7)}\n`,
    );
  }
}
const worst = rows.reduce((a, b) => (b.p50 > a.p50 ? b : a));
process.stdout.write(`\nSlowest p50: ${worst.strategy} at ${worst.tokens} tokens, ${worst.p50.toFixed(1)} µs (target ≤ 100 µs).\n`);
