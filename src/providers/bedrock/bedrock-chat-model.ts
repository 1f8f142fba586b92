import type { ClientSignal } from '../../lib/client-abort.js';
import { UpstreamError, type CallOptions, type ChatModel, type ChatRequest, type ChatResult, type StreamPart, type ToolCall } from '../contract.js';
import { parseJsonOrUndefined } from '../parse-json.js';
import { invalidResponse } from '../provider-errors.js';
import { postSerialized, type UpstreamHttp, type UpstreamResponse } from '../transport/http-client.js';
import { postForText } from '../transport/post-json-text.js';
import { upstreamTarget } from '../transport/upstream-call.js';
import { bedrockConverseResponseSchema } from './bedrock-api.js';
import { refineBedrockError } from './bedrock-errors.js';
import { convertBedrockUsage } from './convert-bedrock-usage.js';
import { mapBedrockFinishReason } from './map-bedrock-finish-reason.js';
import { mapBedrockRequest } from './map-bedrock-request.js';
import { mapBedrockStream } from './map-bedrock-stream.js';
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
      const parsed = bedrockConverseResponseSchema.safeParse(parseJsonOrUndefined(text));
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
