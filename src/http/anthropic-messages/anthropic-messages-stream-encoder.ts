import { randomBytes } from 'node:crypto';
import type { StreamPart } from '../../providers/contract.js';
import type { ModelInfo } from '../../catalog/catalog.js';
import type { AnswerIds, StreamEncoder } from '../surface-adapter.js';
import { anthropicErrorBody } from './anthropic-messages-errors.js';
import { anthropicStopReason, anthropicUsage } from './encode-anthropic-messages-response.js';

/** An SSE event as Anthropic frames it: the type both in `event:` and in the data. */
function event(data: { readonly type: string; readonly [key: string]: unknown }): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The gateway's stream parts → Anthropic's stream events
 * (https://docs.claude.com/en/docs/build-with-claude/streaming): `message_start`,
 * then per content block `content_block_start`, its deltas (`text_delta` or
 * `input_json_delta`) and `content_block_stop`, with indexes 0, 1, 2… in order;
 * then `message_delta` (stop reason, usage and the gateway's `_meta`) and `message_stop`.
 *
 * `message_start` is sent before any provider has counted the prompt, so its
 * `usage.input_tokens` is the routing estimate (≈ 4 characters a token);
 * `message_delta` carries the provider's counts, which Anthropic's SDK takes over.
 */
export function createAnthropicStreamEncoder<M>(ids: AnswerIds, model: ModelInfo): StreamEncoder<M> {
  let nextIndex = 0;
  let open: { readonly kind: 'text' | 'tool_use'; readonly index: number } | undefined;
  /** Block index of each tool call (by the part's tool-call index). */
  const toolBlocks = new Map<number, number>();

  const startBlock = (kind: 'text' | 'tool_use', contentBlock: Record<string, unknown>): { index: number; events: string[] } => {
    const events = closeBlock();
    const index = nextIndex;
    nextIndex += 1;
    open = { kind, index };
    events.push(event({ type: 'content_block_start', index, content_block: contentBlock }));
    return { index, events };
  };
  const closeBlock = (): string[] => {
    if (open === undefined) return [];
    const { index } = open;
    open = undefined;
    return [event({ type: 'content_block_stop', index })];
  };

  const textDelta = (text: string): string[] => {
    if (text === '') return [];
    const events: string[] = [];
    let index = open?.kind === 'text' ? open.index : undefined;
    if (index === undefined) {
      const started = startBlock('text', { type: 'text', text: '' });
      events.push(...started.events);
      index = started.index;
    }
    events.push(event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
    return events;
  };

  const toolDelta = (part: Extract<StreamPart, { type: 'tool-call-delta' }>): string[] => {
    const events: string[] = [];
    let index = toolBlocks.get(part.index);
    if (index === undefined) {
      const id = part.id ?? `toolu_${randomBytes(12).toString('base64url')}`;
      const started = startBlock('tool_use', { type: 'tool_use', id, name: part.name ?? '', input: {} });
      events.push(...started.events);
      index = started.index;
      toolBlocks.set(part.index, index);
    }
    // Providers stream one tool call after another; should one interleave, its
    // delta still goes to its own block, whose index the SDK accumulates by.
    if (part.argumentsDelta !== '') events.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part.argumentsDelta } }));
    return events;
  };

  return {
    start: () => [
      event({
        type: 'message_start',
        message: {
          id: ids.id,
          type: 'message',
          role: 'assistant',
          model: model.id,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: ids.estimatedPromptTokens, output_tokens: 0 },
        },
      }),
    ],
    part(part) {
      switch (part.type) {
        case 'text-delta':
        case 'refusal-delta':
          return textDelta(part.text);
        case 'tool-call-delta':
          return toolDelta(part);
        case 'finish':
        case 'usage':
          return [];
      }
    },
    end: ({ finishReason, usage, meta }) => [
      ...closeBlock(),
      event({
        type: 'message_delta',
        delta: { stop_reason: anthropicStopReason(finishReason), stop_sequence: null },
        usage: anthropicUsage(usage),
        _meta: meta,
      }),
      event({ type: 'message_stop' }),
    ],
    // A stream that broke after it had started ends with Anthropic's error event, as the API's own do.
    fail: (failure, meta) => [event({ ...anthropicErrorBody(failure, ids.requestId), type: 'error', _meta: meta })],
  };
}
