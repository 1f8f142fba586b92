/**
 * The provider-neutral contract. Nothing provider-specific may leak in here:
 * each provider folder maps the gateway's chat request onto its own wire format
 * and maps the answer back onto these types.
 */

import type { ClientSignal } from '../lib/client-abort.js';

/** An OpenAI-style content part; providers map the kinds they support. */
export interface ContentPart {
  readonly type: string;
  readonly text?: string;
  readonly [key: string]: unknown;
}

export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface ChatMessage {
  readonly role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  readonly content?: string | readonly ContentPart[] | null;
  readonly name?: string;
  readonly tool_calls?: readonly ToolCall[];
  readonly tool_call_id?: string;
  readonly [key: string]: unknown;
}

export interface ToolDefinition {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: Record<string, unknown>;
    readonly strict?: boolean | null;
  };
}

/**
 * The request as the gateway validated it, in OpenAI's chat-completion shape,
 * without `model` and `stream` (the router and the transport decide those).
 * Parameters the gateway does not interpret (top_p, stop, seed, response_format…)
 * stay on the object and are passed through by providers that understand them.
 */
export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly temperature?: number;
  readonly max_tokens?: number;
  readonly max_completion_tokens?: number;
  readonly tools?: readonly ToolDefinition[];
  readonly tool_choice?: unknown;
  readonly stream_options?: { readonly include_usage?: boolean };
  readonly [key: string]: unknown;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface Usage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens served from the provider's cache (billed at the cached rate). */
  readonly cachedPromptTokens?: number;
  /** Prompt tokens written to the provider's cache (Anthropic, Bedrock; billed at the cache-write rate). */
  readonly cacheWritePromptTokens?: number;
  readonly reasoningTokens?: number;
  /** True when the provider gave no counts and the gateway counted with a tokenizer. */
  readonly estimated: boolean;
}

export interface AssistantMessage {
  readonly content: string | null;
  readonly toolCalls?: readonly ToolCall[];
  readonly refusal?: string | null;
}

export interface ChatResult {
  readonly message: AssistantMessage;
  readonly finishReason: FinishReason;
  readonly usage: Usage | undefined;
  readonly systemFingerprint?: string | null;
}

export type StreamPart =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'refusal-delta'; readonly text: string }
  | {
      readonly type: 'tool-call-delta';
      readonly index: number;
      readonly id?: string;
      readonly name?: string;
      readonly argumentsDelta: string;
    }
  | { readonly type: 'finish'; readonly finishReason: FinishReason }
  | { readonly type: 'usage'; readonly usage: Usage };

export interface CallOptions {
  /** The caller's abort: an AbortSignal, or routing's cheaper ClientAbort (lib/client-abort.ts). */
  readonly signal: ClientSignal;
}

/** One model of one provider, ready to call. */
export interface ChatModel {
  readonly provider: string;
  readonly modelId: string;
  generate(request: ChatRequest, options: CallOptions): Promise<ChatResult>;
  /**
   * Resolves once the upstream has accepted the request (status and headers seen),
   * so a failure before the first byte can still fall back to another model.
   * A provider that reads its body by push returns a `PartChannel` (part-stream.ts),
   * which the gateway relays without a promise per part; an async generator is adapted.
   */
  stream(request: ChatRequest, options: CallOptions): Promise<AsyncIterable<StreamPart>>;
}

export type UpstreamErrorKind = 'http' | 'timeout' | 'connection' | 'invalid_response' | 'aborted';

/** An upstream failure, with what routing needs to decide whether to fall back. */
export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly statusCode: number | undefined;
  readonly isRetryable: boolean;
  readonly responseBody: string | undefined;
  readonly retryAfterMs: number | undefined;
  /** Response headers of an HTTP error, for providers that put the error type there (Bedrock's x-amzn-errortype). */
  readonly responseHeaders: Readonly<Record<string, string>> | undefined;
  readonly provider: string;

  constructor(init: {
    provider: string;
    kind: UpstreamErrorKind;
    message: string;
    statusCode?: number;
    isRetryable: boolean;
    responseBody?: string;
    retryAfterMs?: number;
    responseHeaders?: Readonly<Record<string, string>>;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'UpstreamError';
    this.provider = init.provider;
    this.kind = init.kind;
    this.statusCode = init.statusCode;
    this.isRetryable = init.isRetryable;
    this.responseBody = init.responseBody;
    this.retryAfterMs = init.retryAfterMs;
    this.responseHeaders = init.responseHeaders;
  }
}

/** Status codes after which another model may well succeed. */
export function isRetryableStatus(status: number): boolean {
  // 401/403/404 from an upstream mean our credentials or deployment for that
  // provider are wrong: the request itself is fine, so another model may serve it.
  return status === 401 || status === 403 || status === 404 || status === 408 || status === 409 || status === 429 || status >= 500;
}

export interface EmbeddingRequest {
  /**
   * Texts, or token arrays. Only OpenAI's format takes token arrays; the other formats' clients refuse them with
   * `unsupportedRequest` (another model may serve the request).
   */
  readonly input: readonly (string | readonly number[])[];
  /** Output dimensions, where the model can shorten its vectors. */
  readonly dimensions?: number;
  readonly user?: string;
}

export interface EmbeddingResult {
  /** One vector per input, in input order, as the provider's numbers (float64 as JSON gives them). */
  readonly embeddings: readonly (readonly number[])[];
  /** The provider's count of input tokens; undefined when it gave none (then counted). */
  readonly usage: { readonly promptTokens: number } | undefined;
}

/** One embedding model of one provider, ready to call. */
export interface EmbeddingModel {
  readonly provider: string;
  readonly modelId: string;
  embed(request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResult>;
}
