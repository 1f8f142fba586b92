import type { StreamPart } from '../contract.js';
import { invalidResponse } from '../provider-errors.js';
import type { ServerSentPartMapping } from '../transport/sse-part-stream.js';
import { convertOpenAIUsage } from './convert-openai-usage.js';
import { openAIStreamErrorSchema, type OpenAIChunk } from './openai-api.js';
import { streamErrorToUpstreamError } from './openai-errors.js';
import { mapOpenAIFinishReason } from './map-openai-finish-reason.js';
import { readChunk } from './read-openai-response.js';

/** OpenAI's chunks → parts: the answer is complete at [DONE]; a body that ends before a finish_reason was cut short. */
export function openAIStreamMapping(provider: string): ServerSentPartMapping {
  let finished = false;
  return {
    event(event, push) {
      if (event.data === '[DONE]') return true;
      if (pushChunkParts(parseChunk(provider, event.data), push)) finished = true;
      return false;
    },
    end() {
      // A body that ends cleanly without [DONE] or a finish_reason was cut short
      // (a proxy, a crashed worker): the answer is incomplete, not done.
      if (!finished) throw invalidResponse(provider, 'stream ended before its finish_reason and [DONE]');
    },
  };
}

/** One stream event's chunk; throws an UpstreamError for an error event or a malformed chunk. */
function parseChunk(provider: string, data: string): OpenAIChunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw invalidResponse(provider, 'stream event is not JSON');
  }
  // Only a body with an `error` field can be an error event: a failed zod parse on every normal chunk would
  // build an error object with its issues each time, the largest share of a stream's garbage.
  const streamError = typeof json === 'object' && json !== null && 'error' in json ? openAIStreamErrorSchema.safeParse(json) : undefined;
  if (streamError?.success === true) throw streamErrorToUpstreamError(provider, streamError.data, data);
  const chunk = readChunk(json);
  if (chunk === undefined) throw invalidResponse(provider, 'stream chunk does not match the chunk shape');
  return chunk;
}

/** Pushes a chunk's parts; true when one was the finish. */
function pushChunkParts(chunk: OpenAIChunk, push: (part: StreamPart) => void): boolean {
  const choice = chunk.choices[0];
  if (choice !== undefined) {
    const delta = choice.delta;
    if (delta?.content) push({ type: 'text-delta', text: delta.content });
    if (delta?.refusal) push({ type: 'refusal-delta', text: delta.refusal });
    for (const call of delta?.tool_calls ?? []) {
      push({
        type: 'tool-call-delta',
        index: call.index,
        ...(call.id ? { id: call.id } : {}),
        ...(call.function?.name ? { name: call.function.name } : {}),
        argumentsDelta: call.function?.arguments ?? '',
      });
    }
    if (choice.finish_reason) push({ type: 'finish', finishReason: mapOpenAIFinishReason(choice.finish_reason) });
  }
  const usage = convertOpenAIUsage(chunk.usage);
  if (usage !== undefined) push({ type: 'usage', usage });
  return Boolean(choice?.finish_reason);
}
