import { createHash, randomBytes } from 'node:crypto';
import type { FinishReason } from '../contract.js';
import { invalidResponse } from '../provider-errors.js';
import type { ServerSentPartMapping } from '../transport/sse-part-stream.js';
import { convertGeminiUsage } from './convert-gemini-usage.js';
import { geminiErrorSchema, geminiResponseSchema, type GeminiResponse } from './gemini-api.js';
import { failedGeneration, geminiStreamError } from './gemini-errors.js';
import { isFailedGeneration, mapGeminiFinishReason } from './map-gemini-finish-reason.js';

/**
 * Each chunk of Gemini's stream is a whole GenerateContentResponse: text parts
 * are deltas, function calls arrive whole, and usageMetadata is cumulative, so
 * only the last one counts. The stream has no end marker: a finishReason (or a
 * blocked prompt) followed by the end of the body is a complete answer.
 */
export function geminiStreamMapping(provider: string): ServerSentPartMapping {
  let finishReason: FinishReason | undefined;
  let lastUsage: GeminiResponse['usageMetadata'];
  let toolCallCount = 0;
  return {
    event(event, push) {
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        throw invalidResponse(provider, 'stream event is not JSON');
      }
      const streamError = geminiErrorSchema.safeParse(json);
      if (streamError.success) throw geminiStreamError(provider, event.data, streamError.data);
      const parsed = geminiResponseSchema.safeParse(json);
      if (!parsed.success) throw invalidResponse(provider, 'stream chunk does not match the GenerateContentResponse shape');
      const chunk = parsed.data;
      if (chunk.usageMetadata) lastUsage = chunk.usageMetadata;
      if (finishReason !== undefined) return false;
      const candidate = chunk.candidates?.[0];
      if (candidate === undefined) {
        if (chunk.promptFeedback?.blockReason) {
          finishReason = 'content_filter';
          push({ type: 'finish', finishReason });
        }
        return false;
      }
      if (isFailedGeneration(candidate.finishReason)) throw failedGeneration(provider, candidate);
      for (const part of candidate.content?.parts ?? []) {
        if (part.functionCall) {
          const index = toolCallCount++;
          push({
            type: 'tool-call-delta',
            index,
            id: toolCallId(chunk.responseId, index, part.functionCall.id),
            name: part.functionCall.name,
            argumentsDelta: JSON.stringify(part.functionCall.args ?? {}),
          });
        } else if (part.text && part.thought !== true) {
          push({ type: 'text-delta', text: part.text });
        }
      }
      if (candidate.finishReason) {
        finishReason = mapGeminiFinishReason(candidate.finishReason, toolCallCount > 0);
        push({ type: 'finish', finishReason });
      }
      return false;
    },
    end(push) {
      // A body that ends cleanly before any finishReason was cut short (a proxy, a
      // crashed frontend): the answer is incomplete, not done.
      if (finishReason === undefined) throw invalidResponse(provider, 'stream ended before a finishReason');
      const usage = convertGeminiUsage(lastUsage);
      if (usage !== undefined) push({ type: 'usage', usage });
    },
  };
}

/**
 * Gemini's own call id when it gives one; otherwise one derived from the
 * response id and the call's position, so a replayed stream gives the same ids
 * and two responses never share one. Complete answers (gemini-chat-model.ts) use it too.
 */
export function toolCallId(responseId: string | null | undefined, index: number, upstreamId: string | null | undefined): string {
  if (upstreamId) return upstreamId;
  const seed = responseId ? createHash('sha256').update(`${responseId}:${index}`).digest() : randomBytes(18);
  return `call_${seed.toString('base64url').slice(0, 24)}`;
}
