import type { z } from 'zod';
import type { ClientSignal } from '../../lib/client-abort.js';
import { UpstreamError, type CallOptions, type ChatModel, type ChatRequest, type ChatResult, type FinishReason, type StreamPart, type ToolCall, type Usage } from '../contract.js';
import { postSerialized, toUpstreamError, type UpstreamHttp, type UpstreamResponse } from '../http-client.js';
import { postForText, upstreamTarget } from '../post-json-text.js';
import {
  bedrockConverseResponseSchema,
  contentBlockDeltaEventSchema,
  contentBlockStartEventSchema,
  contentBlockStopEventSchema,
  messageStopEventSchema,
  metadataEventSchema,
} from './bedrock-api.js';
import { invalidResponse, refineBedrockError, streamErrorMessageToUpstreamError, streamExceptionToUpstreamError } from './bedrock-errors.js';
import { convertBedrockUsage } from './convert-bedrock-usage.js';
import { EventStreamFramingError, readEventStreamMessages } from './event-stream-decoder.js';
import { mapBedrockFinishReason } from './map-bedrock-finish-reason.js';
import { mapBedrockRequest } from './map-bedrock-request.js';
import { createBedrockSigner, type AwsCredentials } from './sign-bedrock-request.js';

export interface BedrockProviderSettings {
  /** Name used in `<provider>:<model>` ids and in errors. @default "bedrock" */
  readonly provider: string;
  /** The AWS region whose runtime endpoint is called and that requests are signed for. @example "us-east-1" */
  readonly region: string;
  /** The runtime endpoint, for VPC endpoints, proxies and tests. @default "https://bedrock-runtime.<region>.amazonaws.com" */
  readonly baseUrl?: string;
  readonly credentials: AwsCredentials;
  readonly http: UpstreamHttp;
  /** `maxTokens` when the request sets none. @default none: the model's own default */
  readonly defaultMaxTokens?: number;
  /** The signing clock. @default () => new Date() */
  readonly now?: () => Date;
}

/**
 * A model on Amazon Bedrock spoken to through the Converse API, the one request
 * shape Bedrock offers for every chat model (Claude, Llama, Nova, Mistral…).
 * Model ids are Bedrock's own and contain colons (`anthropic.claude-3-5-haiku-20241022-v1:0`);
 * they are percent-encoded into the path, inference-profile ARNs included.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
export function createBedrockChatModel(settings: BedrockProviderSettings, modelId: string): ChatModel {
  const provider = settings.provider;
  const base = (settings.baseUrl ?? `https://bedrock-runtime.${settings.region}.amazonaws.com`).replace(/\/+$/, '');
  const modelUrl = `${base}/model/${encodeURIComponent(modelId)}`;
  const sign = createBedrockSigner(settings.credentials, settings.region, settings.now);
  const requestOptions = { provider, modelId, ...(settings.defaultMaxTokens !== undefined ? { defaultMaxTokens: settings.defaultMaxTokens } : {}) };

  const converseUrl = new URL(`${modelUrl}/converse`);
  const converseTarget = upstreamTarget(converseUrl.href);
  const streamUrl = new URL(`${modelUrl}/converse-stream`);

  const converseText = async (request: ChatRequest, signal: ClientSignal): Promise<string> => {
    const payload = JSON.stringify(mapBedrockRequest(request, requestOptions));
    const signed = await sign(converseUrl, payload, { 'content-type': 'application/json' });
    try {
      // The bytes sent are the bytes signed.
      return (await postForText(settings.http, provider, converseTarget, { ...signed, accept: 'application/json' }, payload, signal)).text;
    } catch (error) {
      throw error instanceof UpstreamError ? refineBedrockError(error) : error;
    }
  };

  const postStream = async (request: ChatRequest, signal: ClientSignal): Promise<UpstreamResponse> => {
    const payload = JSON.stringify(mapBedrockRequest(request, requestOptions));
    const signed = await sign(streamUrl, payload, { 'content-type': 'application/json' });
    try {
      // The bytes sent are the bytes signed.
      return await postSerialized(settings.http, provider, streamUrl.href, { ...signed, accept: 'application/vnd.amazon.eventstream' }, payload, signal);
    } catch (error) {
      throw error instanceof UpstreamError ? refineBedrockError(error) : error;
    }
  };

  return {
    provider,
    modelId,

    async generate(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
      const text = await converseText(request, options.signal);
      const parsed = bedrockConverseResponseSchema.safeParse(parseJson(text));
      if (!parsed.success) throw invalidResponse(provider, 'response body is not a Converse response');
      const texts: string[] = [];
      const toolCalls: ToolCall[] = [];
      // Reasoning, citations and other block kinds are Bedrock's own: not part of the OpenAI answer.
      for (const block of parsed.data.output.message.content) {
        if (block.text !== undefined) texts.push(block.text);
        if (block.toolUse !== undefined) {
          const { toolUseId, name, input } = block.toolUse;
          toolCalls.push({ id: toolUseId, type: 'function', function: { name, arguments: JSON.stringify(input ?? {}) } });
        }
      }
      return {
        message: { content: texts.length > 0 ? texts.join('') : null, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
        finishReason: mapBedrockFinishReason(parsed.data.stopReason),
        usage: convertBedrockUsage(parsed.data.usage),
      };
    },

    async stream(request: ChatRequest, options: CallOptions): Promise<AsyncIterable<StreamPart>> {
      const response = await postStream(request, options.signal);
      return mapBedrockStream(provider, response.body, options.signal);
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

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
async function* mapBedrockStream(provider: string, body: UpstreamResponse['body'], signal: ClientSignal): AsyncGenerator<StreamPart> {
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
      const json = parseJson(payload);
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
