import { expectedCarbonGrams } from '../../accounting/carbon.js';
import { computeCostUsd } from '../../accounting/cost.js';
import { messageText } from '../../providers/token-counter.js';
import type { ChatRequest, Usage } from '../../providers/contract.js';
import type { ModelInfo } from '../../catalog/catalog.js';
import type { ModelHealthView } from '../routing-contract.js';
import type { CandidateEstimate } from './routing-strategy.js';

/**
 * What routing expects of a request before any provider has counted anything.
 * The bill always uses the provider's own counts; these numbers only rank and
 * filter, so they trade exactness for speed on the hot path.
 */

/**
 * Routing sizes the prompt at one token per 4 bytes of UTF-8 (message text,
 * names, tool calls and tool definitions), never with a tokenizer. On the
 * 14,037 labelled prompts in shared/data/routing the estimate is 1.08 of the
 * o200k count at the median (0.66–1.34 from the 5th to the 95th percentile); bytes,
 * unlike characters, keep CJK text close (UTF-8 gives a CJK character 3 bytes,
 * about one token) and err high for Cyrillic or Greek. Loading the o200k tables
 * costs 40–60 MiB of resident memory and 100 ms at first use, and counting
 * about 0.1 ms per 1,000 characters on every request; the estimate only ranks
 * and filters, and the bill uses the provider's own counts (docs/routing.md).
 */
export const BYTES_PER_TOKEN = 4;

/** Tokens assumed per image part: OpenAI's price of a 1024×1024 high-detail image (85 + 4 tiles × 170). */
export const IMAGE_TOKENS = 765;

/** Expected answer length when the conversation has no earlier assistant turn to learn from. */
export const DEFAULT_OUTPUT_TOKENS = 256;

/** What the request needs and how big it is, independent of any model. */
export interface RequestProfile {
  readonly promptTokens: number;
  /** `max_completion_tokens`, else `max_tokens`. */
  readonly maxTokens: number | undefined;
  /** Median length in tokens of the conversation's earlier assistant turns; undefined when there are none. */
  readonly historyOutputTokens: number | undefined;
  readonly needsTools: boolean;
  readonly needsVision: boolean;
  /** Embedding requests only (profileEmbeddingRequest): nothing is generated, and each input alone must fit the model's window. */
  readonly embedding?: { readonly longestInputTokens: number };
}

export function profileRequest(request: ChatRequest): RequestProfile {
  let bytes = 0;
  let images = 0;
  const assistantLengths: number[] = [];
  for (const message of request.messages) {
    const text = messageText(message);
    bytes += Buffer.byteLength(text) + (message.name === undefined ? 0 : Buffer.byteLength(message.name));
    if (Array.isArray(message.content)) {
      for (const part of message.content) if (part.type === 'image_url' || part.type === 'input_image') images += 1;
    }
    if (message.role === 'assistant' && text.length > 0) assistantLengths.push(Math.ceil(text.length / 4));
  }
  const toolsJson = request.tools !== undefined && request.tools.length > 0 ? JSON.stringify(request.tools) : '';
  bytes += Buffer.byteLength(toolsJson);
  // The same framing as the accounting's count: 3 tokens per message plus 3 to prime the reply.
  const textTokens = Math.ceil(bytes / BYTES_PER_TOKEN) + 3 * request.messages.length + 3;
  return {
    promptTokens: textTokens + images * IMAGE_TOKENS,
    maxTokens: request.max_completion_tokens ?? request.max_tokens,
    historyOutputTokens: median(assistantLengths),
    needsTools: (request.tools?.length ?? 0) > 0,
    needsVision: images > 0,
  };
}

/**
 * An embedding request, given as one user message per input: the inputs'
 * tokens without a chat's framing (an embedding bills its input as it is),
 * and the longest input, which must fit the model's window on its own.
 */
export function profileEmbeddingRequest(request: ChatRequest): RequestProfile {
  let promptTokens = 0;
  let longestInputTokens = 0;
  for (const message of request.messages) {
    const tokens = Math.ceil(Buffer.byteLength(messageText(message)) / BYTES_PER_TOKEN);
    promptTokens += tokens;
    if (tokens > longestInputTokens) longestInputTokens = tokens;
  }
  return { promptTokens, maxTokens: undefined, historyOutputTokens: undefined, needsTools: false, needsVision: false, embedding: { longestInputTokens } };
}

/**
 * The answer's expected length: the median of the conversation's earlier
 * assistant turns (DEFAULT_OUTPUT_TOKENS when there are none), capped by the
 * caller's max_tokens and by the model's maximum output. At least 1, except
 * for an embedding request, which generates nothing: 0, so it is priced,
 * timed and its carbon counted by its input alone.
 */
export function expectedOutputTokens(profile: RequestProfile, model: ModelInfo): number {
  if (profile.embedding !== undefined) return 0;
  const base = profile.historyOutputTokens ?? DEFAULT_OUTPUT_TOKENS;
  return Math.max(1, Math.min(base, profile.maxTokens ?? Number.POSITIVE_INFINITY, model.maxOutputTokens));
}

/**
 * Cost, latency and carbon this request is expected to have on `model`.
 * Latency is read under `healthKey` (an owner's own credentials have their
 * own), else under the model id, else taken from the catalog; each half (TTFT,
 * tokens per second) falls back to the catalog on its own while unmeasured.
 */
export function estimateCandidate(model: ModelInfo, profile: RequestProfile, health: ModelHealthView | undefined, healthKey: string = model.id): CandidateEstimate {
  const outputTokens = expectedOutputTokens(profile, model);
  const live = health === undefined ? undefined : (health.latency(healthKey) ?? (healthKey === model.id ? undefined : health.latency(model.id)));
  const liveTtft = live !== undefined && live.samples > 0 && Number.isFinite(live.ttftMs) && live.ttftMs >= 0 ? live.ttftMs : undefined;
  const liveSpeed = live !== undefined && live.samples > 0 && Number.isFinite(live.tokensPerSecond) && live.tokensPerSecond > 0 ? live.tokensPerSecond : undefined;
  const measured = live !== undefined && (liveTtft !== undefined || liveSpeed !== undefined);
  const ttftMs = liveTtft ?? model.typicalTtftMs;
  const tokensPerSecond = liveSpeed ?? model.typicalTokensPerSecond;
  const generationMs = (outputTokens / tokensPerSecond) * 1000;
  // No cache hit is known before the provider reports one, so the prompt is priced at the list price.
  const usage: Usage = { promptTokens: profile.promptTokens, completionTokens: outputTokens, estimated: true };
  return {
    model,
    promptTokens: profile.promptTokens,
    outputTokens,
    expectedCostUsd: computeCostUsd(usage, model.pricing),
    expectedLatencyMs: ttftMs + generationMs,
    ttftMs,
    tokensPerSecond,
    latencySource: measured ? 'measured' : 'catalog',
    latencySamples: measured ? live.samples : 0,
    expectedCarbonGrams: expectedCarbonGrams(model, outputTokens, generationMs),
    quality: model.qualityScore,
  };
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const upper = sorted[middle] ?? 0;
  return sorted.length % 2 === 1 ? upper : Math.round(((sorted[middle - 1] ?? upper) + upper) / 2);
}
