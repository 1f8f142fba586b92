/**
 * Decision time of the `auto` strategy's predictor: one `choose` call (prompt
 * features, every candidate's probability, the cheapest model meeting the
 * target) for prompts of about 100, 1,000 and 4,000 tokens, in-process.
 *
 *   npm run bench:router [-- --calls 20000]
 */
import { parseArgs } from 'node:util';
import { countTextTokens } from '../src/accounting/token-counter.js';
import { createAutoPredictor } from '../src/routing/auto/auto-predictor.js';
import { createRandom } from '../src/routing/auto/folds.js';
import { loadShippedAutoModel } from '../src/routing/auto/shipped-model.js';
import { loadShippedCatalog } from '../src/routing/catalog.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '20000' } } });
const calls = Number(values.calls);

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

function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

const model = loadShippedAutoModel();
const predictor = createAutoPredictor(model);
const catalog = loadShippedCatalog();
const candidates = ['openai:gpt-4o-mini', 'openai:gpt-4o', 'anthropic:claude-sonnet-4-5', 'gemini:gemini-2.5-flash', 'sim:small'].flatMap((id) => {
  const info = catalog.get(id);
  return info === undefined ? [] : [info];
});
const random = createRandom(7);
process.stdout.write(`auto predictor decision time (choose over ${candidates.length} models, ${calls} calls per size, Node ${process.version})\n`);
process.stdout.write('TOKENS (measured)  CHARS   p50 µs  p99 µs  mean µs\n');
for (const tokens of [100, 1000, 4000]) {
  // Sized in characters, then rescaled once so the o200k token count matches.
  const probe = syntheticPrompt(tokens * 4, random);
  const charsPerToken = probe.length / countTextTokens(probe);
  const prompts = Array.from({ length: 64 }, () => syntheticPrompt(Math.round(tokens * charsPerToken), random));
  const measuredTokens = Math.round(prompts.slice(0, 8).reduce((sum, prompt) => sum + countTextTokens(prompt), 0) / 8);
  const chars = Math.round(prompts.reduce((sum, prompt) => sum + prompt.length, 0) / prompts.length);
  for (let k = 0; k < 2000; k += 1) predictor.choose(prompts[k % prompts.length] ?? '', candidates, { kind: 'quality-target', target: 0.8 });
  const times = new Float64Array(calls);
  let sink = 0;
  for (let k = 0; k < calls; k += 1) {
    const prompt = prompts[k % prompts.length] ?? '';
    const started = process.hrtime.bigint();
    const choice = predictor.choose(prompt, candidates, { kind: 'quality-target', target: 0.8 });
    times[k] = Number(process.hrtime.bigint() - started) / 1000;
    sink += choice.probability;
  }
  times.sort();
  const mean = times.reduce((sum, value) => sum + value, 0) / calls;
  process.stdout.write(
    `${`${tokens} (${measuredTokens})`.padEnd(18)}  ${String(chars).padEnd(6)}  ${percentile(times, 0.5).toFixed(1).padStart(6)}  ${percentile(times, 0.99).toFixed(1).padStart(6)}  ${mean.toFixed(1).padStart(7)}\n`,
  );
  if (!Number.isFinite(sink)) throw new Error('unreachable: keeps the calls from being optimised away');
}
