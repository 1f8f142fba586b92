import type { ChatRequest, Usage } from '../providers/contract.js';
import type { ModelInfo } from '../catalog/catalog.js';
import { estimateCarbon, type CarbonEstimate } from './carbon.js';
import { costAtPrices, pricesForPrompt, type AppliedPrices } from './cost.js';
import { countPromptTokens, countTextTokens } from '../providers/token-counter.js';

export interface CallAccount {
  readonly usage: Usage;
  readonly costUsd: number;
  /** The per-million-token prices the call paid (its long-context tier's, if any): `costUsd` recomputes from them and `usage`. */
  readonly prices: AppliedPrices;
  /** Usage-phase emissions with every input of the estimate (docs/carbon.md). */
  readonly carbon: CarbonEstimate;
}

/**
 * Cost and carbon of one answered call from the provider's own token counts;
 * when the provider sent none, the prompt and the generated text are counted
 * with the tokenizer and the usage is marked estimated.
 */
export function accountCall(input: {
  model: ModelInfo;
  request: ChatRequest;
  usage: Usage | undefined;
  generatedText: string;
  generationMs: number;
}): CallAccount {
  const usage: Usage = input.usage ?? {
    promptTokens: countPromptTokens(input.request),
    completionTokens: countTextTokens(input.generatedText),
    estimated: true,
  };
  return accountUsage(input.model, usage, input.generationMs);
}

/** Cost and carbon of `usage` on `model`: completion tokens (reasoning included) are what the carbon estimate counts. */
export function accountUsage(model: ModelInfo, usage: Usage, generationMs: number | undefined): CallAccount {
  const prices = pricesForPrompt(model.pricing, usage.promptTokens);
  return { usage, costUsd: costAtPrices(usage, prices), prices, carbon: estimateCarbon(model, usage.completionTokens, generationMs) };
}

/**
 * Cost and carbon of one embedding call: input tokens only, the provider's count, or the inputs counted with the
 * tokenizer (texts) or by length (token arrays) when it gave none, and then marked estimated.
 */
export function accountEmbeddingCall(input: {
  model: ModelInfo;
  inputs: readonly (string | readonly number[])[];
  promptTokens: number | undefined;
  generationMs: number;
}): CallAccount {
  const usage: Usage =
    input.promptTokens === undefined
      ? { promptTokens: input.inputs.reduce((sum, item) => sum + (typeof item === 'string' ? countTextTokens(item) : item.length), 0), completionTokens: 0, estimated: true }
      : { promptTokens: input.promptTokens, completionTokens: 0, estimated: false };
  return accountUsage(input.model, usage, input.generationMs);
}
