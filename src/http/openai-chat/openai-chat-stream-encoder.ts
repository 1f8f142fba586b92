import type { ModelInfo } from '../../catalog/catalog.js';
import type { StreamPart } from '../../providers/contract.js';
import type { AnswerIds, StreamEncoder } from '../surface-adapter.js';
import { chunkBody, openAIUsage } from './encode-openai-chat-response.js';
import { openAIChatErrorEvent } from './openai-chat-errors.js';

const event = (data: string) => `data: ${data}\n\n`;

/**
 * OpenAI `chat.completion.chunk` events (docs/api.md, Streaming): the role chunk, one chunk per delta, then the
 * finish chunk, which is held until the end so it can carry `_meta` (or the usage chunk carries it when asked for).
 * `M` is the `_meta` it carries (a router's, or an agent's).
 */
export function createOpenAIChatStreamEncoder<M>(ids: Pick<AnswerIds, 'id' | 'created'>, model: ModelInfo, includeUsage: boolean): StreamEncoder<M> {
  const base = { id: ids.id, created: ids.created, model: model.id };
  const textDelta = textDeltaTemplate(base);
  return {
    start: () => [event(chunkBody(base, { role: 'assistant', content: '', refusal: null }, null))],
    part(part: StreamPart) {
      switch (part.type) {
        case 'text-delta':
          return [textDelta(part.text)];
        case 'refusal-delta':
          return [event(chunkBody(base, { refusal: part.text }, null))];
        case 'tool-call-delta': {
          const call: Record<string, unknown> = { index: part.index };
          if (part.id !== undefined) Object.assign(call, { id: part.id, type: 'function' });
          call.function = { ...(part.name !== undefined ? { name: part.name } : {}), arguments: part.argumentsDelta };
          return [event(chunkBody(base, { tool_calls: [call] }, null))];
        }
        case 'finish':
        case 'usage':
          return [];
      }
    },
    end: ({ finishReason, usage, meta }) => [
      event(chunkBody(base, {}, finishReason, includeUsage ? {} : { _meta: meta })),
      ...(includeUsage ? [event(chunkBody(base, undefined, null, { usage: openAIUsage(usage), _meta: meta }))] : []),
      'data: [DONE]\n\n',
    ],
    fail: (failure, meta) => [openAIChatErrorEvent(failure, meta)],
  };
}

/**
 * The event of a text delta, the most frequent by far: `chunkBody`'s bytes exactly (the same keys in the same order,
 * the text serialised by JSON.stringify), from a head and a tail built once per stream instead of an object tree
 * serialised per chunk.
 */
export function textDeltaTemplate(base: { id: string; created: number; model: string }): (text: string) => string {
  const marker = '\u0000';
  const whole = event(chunkBody(base, { content: marker }, null));
  const at = whole.indexOf(JSON.stringify(marker));
  const head = whole.slice(0, at);
  const tail = whole.slice(at + JSON.stringify(marker).length);
  return (text) => head + JSON.stringify(text) + tail;
}
