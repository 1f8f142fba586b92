import type { z } from 'zod';
import type { ClientSignal } from '../../lib/client-abort.js';
import { UpstreamError, type FinishReason, type StreamPart, type Usage } from '../contract.js';
import { parseJsonOrUndefined } from '../parse-json.js';
import { invalidResponse } from '../provider-errors.js';
import { toUpstreamError, type UpstreamResponse } from '../transport/http-client.js';
import {
  contentBlockDeltaEventSchema,
  contentBlockStartEventSchema,
  contentBlockStopEventSchema,
  messageStopEventSchema,
  metadataEventSchema,
} from './bedrock-api.js';
import { streamErrorMessageToUpstreamError, streamExceptionToUpstreamError } from './bedrock-errors.js';
import { convertBedrockUsage } from './convert-bedrock-usage.js';
import { EventStreamFramingError, readEventStreamMessages } from './event-stream-decoder.js';
import { mapBedrockFinishReason } from './map-bedrock-finish-reason.js';

/** A toolUse block being streamed: its place among the tool calls, and whether arguments came. */
interface OpenToolCall {
  readonly index: number;
  hasArguments: boolean;
}

const utf8 = new TextDecoder();

/**
 * ConverseStream's events → StreamParts
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html).
 * Text comes as deltas of a block that has no start event; a tool call starts
 * with its id and name and streams its input as partial JSON. The finish part
 * comes with `messageStop`; the usage part, from `metadata` (after messageStop), last.
 */
export async function* mapBedrockStream(provider: string, body: UpstreamResponse['body'], signal: ClientSignal): AsyncGenerator<StreamPart> {
  const toolCalls = new Map<number, OpenToolCall>();
  let finishReason: FinishReason | undefined;
  let usage: Usage | undefined;
  try {
    for await (const message of readEventStreamMessages(body)) {
      const { headers } = message;
      const payload = utf8.decode(message.body);
      const messageType = headers[':message-type'];
      if (messageType === 'exception') throw streamExceptionToUpstreamError(provider, headers[':exception-type'] ?? 'unknownException', payload);
      if (messageType === 'error') throw streamErrorMessageToUpstreamError(provider, headers[':error-code'] ?? 'unknown', headers[':error-message'] ?? '');
      if (messageType !== 'event') continue;
      const json = parseJsonOrUndefined(payload);
      switch (headers[':event-type']) {
        case 'contentBlockStart': {
          const { contentBlockIndex, start } = parseEvent(provider, contentBlockStartEventSchema, json);
          if (start?.toolUse !== undefined && !toolCalls.has(contentBlockIndex)) {
            const call: OpenToolCall = { index: toolCalls.size, hasArguments: false };
            toolCalls.set(contentBlockIndex, call);
            yield { type: 'tool-call-delta', index: call.index, id: start.toolUse.toolUseId, name: start.toolUse.name, argumentsDelta: '' };
          }
          break;
        }
        case 'contentBlockDelta': {
          const { contentBlockIndex, delta } = parseEvent(provider, contentBlockDeltaEventSchema, json);
          if (delta.text) yield { type: 'text-delta', text: delta.text };
          const call = toolCalls.get(contentBlockIndex);
          // Reasoning deltas, and input of a block whose start never came, are not part of the OpenAI answer.
          if (delta.toolUse !== undefined && call !== undefined && delta.toolUse.input !== '') {
            call.hasArguments = true;
            yield { type: 'tool-call-delta', index: call.index, argumentsDelta: delta.toolUse.input };
          }
          break;
        }
        case 'contentBlockStop': {
          const call = toolCalls.get(parseEvent(provider, contentBlockStopEventSchema, json).contentBlockIndex);
          // A call without arguments streams none, where a complete answer says `{}`: say `{}` too.
          if (call !== undefined && !call.hasArguments) {
            call.hasArguments = true;
            yield { type: 'tool-call-delta', index: call.index, argumentsDelta: '{}' };
          }
          break;
        }
        case 'messageStop': {
          const { stopReason } = parseEvent(provider, messageStopEventSchema, json);
          if (finishReason === undefined) {
            finishReason = mapBedrockFinishReason(stopReason);
            yield { type: 'finish', finishReason };
          }
          break;
        }
        case 'metadata':
          usage = convertBedrockUsage(parseEvent(provider, metadataEventSchema, json).usage);
          break;
        // messageStart, and event types added after this was written.
        default:
          break;
      }
    }
  } catch (error) {
    // A connection lost after messageStop takes nothing from the answer but its usage.
    if (finishReason !== undefined && !(error instanceof UpstreamError) && !signal.aborted) return;
    if (error instanceof EventStreamFramingError) throw invalidResponse(provider, error.message);
    throw toUpstreamError(provider, error, signal);
  } finally {
    // Read to its end on success (the connection goes back to the pool); cut otherwise.
    if (!body.readableEnded) body.destroy();
  }
  if (finishReason === undefined) throw invalidResponse(provider, 'stream ended before its messageStop');
  if (usage !== undefined) yield { type: 'usage', usage };
}

function parseEvent<T>(provider: string, schema: z.ZodType<T>, json: unknown): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw invalidResponse(provider, 'stream event does not match its ConverseStream shape');
  return parsed.data;
}
