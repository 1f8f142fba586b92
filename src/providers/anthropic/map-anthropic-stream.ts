import type { z } from 'zod';
import type { FinishReason, StreamPart } from '../contract.js';
import { parseJsonOrUndefined } from '../parse-json.js';
import { invalidResponse } from '../provider-errors.js';
import type { ServerSentPartMapping } from '../transport/sse-part-stream.js';
import {
  anthropicErrorSchema,
  contentBlockDeltaEventSchema,
  contentBlockStartEventSchema,
  contentBlockStopEventSchema,
  messageDeltaEventSchema,
  messageStartEventSchema,
  streamEventHeadSchema,
  type AnthropicUsage,
} from './anthropic-api.js';
import { streamErrorToUpstreamError } from './anthropic-errors.js';
import { convertAnthropicUsage } from './convert-anthropic-usage.js';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.js';

/** A tool_use block being streamed: its place among the tool calls, and whether arguments came. */
interface OpenToolCall {
  readonly index: number;
  hasArguments: boolean;
}

/**
 * Anthropic's stream events → StreamParts
 * (https://docs.claude.com/en/docs/build-with-claude/streaming#event-types).
 * The finish part comes with `message_delta`, the usage part (input counts from
 * `message_start`, output counts from `message_delta`) with `message_stop`.
 */
export function anthropicStreamMapping(provider: string): ServerSentPartMapping {
  const toolCalls = new Map<number, OpenToolCall>();
  let startUsage: AnthropicUsage | null | undefined;
  let deltaUsage: AnthropicUsage | null | undefined;
  let finishReason: FinishReason | undefined;
  const pushUsage = (push: (part: StreamPart) => void) => {
    const usage = convertAnthropicUsage(startUsage, deltaUsage);
    if (usage !== undefined) push({ type: 'usage', usage });
  };
  return {
    event(event, push) {
      const json = parseJsonOrUndefined(event.data);
      const head = streamEventHeadSchema.safeParse(json);
      if (!head.success) throw invalidResponse(provider, 'stream event is not an Anthropic event');
      switch (head.data.type) {
        case 'message_start': {
          startUsage = parseEvent(provider, messageStartEventSchema, json).message.usage;
          break;
        }
        case 'content_block_start': {
          const { index, content_block: block } = parseEvent(provider, contentBlockStartEventSchema, json);
          if (block.type === 'text' && block.text) push({ type: 'text-delta', text: block.text });
          if (block.type === 'tool_use') {
            const call: OpenToolCall = { index: toolCalls.size, hasArguments: false };
            toolCalls.set(index, call);
            push({ type: 'tool-call-delta', index: call.index, ...(block.id ? { id: block.id } : {}), ...(block.name ? { name: block.name } : {}), argumentsDelta: '' });
          }
          break;
        }
        case 'content_block_delta': {
          const { index, delta } = parseEvent(provider, contentBlockDeltaEventSchema, json);
          if (delta.type === 'text_delta' && delta.text) push({ type: 'text-delta', text: delta.text });
          const call = toolCalls.get(index);
          // input_json_delta of server tools (web search…) has no tool call: it is skipped, as thinking is.
          if (delta.type === 'input_json_delta' && call !== undefined && delta.partial_json) {
            call.hasArguments = true;
            push({ type: 'tool-call-delta', index: call.index, argumentsDelta: delta.partial_json });
          }
          break;
        }
        case 'content_block_stop': {
          const call = toolCalls.get(parseEvent(provider, contentBlockStopEventSchema, json).index);
          // A call without arguments streams none, where a complete answer says `{}`: say `{}` too.
          if (call !== undefined && !call.hasArguments) push({ type: 'tool-call-delta', index: call.index, argumentsDelta: '{}' });
          break;
        }
        case 'message_delta': {
          const { delta, usage } = parseEvent(provider, messageDeltaEventSchema, json);
          if (usage) deltaUsage = usage;
          if (delta.stop_reason && finishReason === undefined) {
            finishReason = mapAnthropicFinishReason(delta.stop_reason);
            push({ type: 'finish', finishReason });
          }
          break;
        }
        case 'message_stop':
          // The rest of the body is read to its end, so the connection can be reused; a failure there takes nothing.
          pushUsage(push);
          return true;
        case 'error': {
          const error = anthropicErrorSchema.safeParse(json);
          if (!error.success) throw invalidResponse(provider, 'stream error event is not an Anthropic error');
          throw streamErrorToUpstreamError(provider, error.data, event.data);
        }
        // ping, and event types added after this was written.
        default:
          break;
      }
      return false;
    },
    end(push) {
      // A body cut after the stop reason lost nothing but message_stop; one cut before it is incomplete.
      if (finishReason === undefined) throw invalidResponse(provider, 'stream ended before its stop_reason and message_stop');
      pushUsage(push);
    },
  };
}

function parseEvent<T>(provider: string, schema: z.ZodType<T>, json: unknown): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw invalidResponse(provider, 'stream event does not match its Anthropic shape');
  return parsed.data;
}
