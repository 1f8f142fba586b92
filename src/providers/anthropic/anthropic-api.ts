import { z } from 'zod';

/**
 * Anthropic's Messages API wire format, as far as the gateway writes and reads it.
 * https://docs.claude.com/en/api/messages and https://docs.claude.com/en/docs/build-with-claude/streaming
 * Responses are parsed with loose schemas: Anthropic adds block types, event
 * types and fields under its versioning policy, and the gateway must not break on them.
 */

// ---- What the gateway sends -------------------------------------------------

export interface AnthropicCacheControl {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface AnthropicTextBlock {
  readonly type: 'text';
  readonly text: string;
  readonly cache_control?: AnthropicCacheControl;
}

export interface AnthropicImageBlock {
  readonly type: 'image';
  readonly source:
    | { readonly type: 'base64'; readonly media_type: string; readonly data: string }
    | { readonly type: 'url'; readonly url: string };
  readonly cache_control?: AnthropicCacheControl;
}

export interface AnthropicDocumentBlock {
  readonly type: 'document';
  readonly source: { readonly type: 'base64'; readonly media_type: string; readonly data: string };
  readonly title?: string;
  readonly cache_control?: AnthropicCacheControl;
}

export interface AnthropicToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content?: string | readonly (AnthropicTextBlock | AnthropicImageBlock)[];
}

export type AnthropicUserBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicToolResultBlock;
export type AnthropicAssistantBlock = AnthropicTextBlock | AnthropicToolUseBlock;

export type AnthropicMessage =
  | { readonly role: 'user'; readonly content: string | readonly AnthropicUserBlock[] }
  | { readonly role: 'assistant'; readonly content: string | readonly AnthropicAssistantBlock[] };

export interface AnthropicTool {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: Record<string, unknown>;
}

export type AnthropicToolChoice =
  | { readonly type: 'auto' | 'any'; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: 'tool'; readonly name: string; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: 'none' };

/** The body of POST /v1/messages. */
export interface AnthropicMessagesRequest {
  readonly model: string;
  readonly max_tokens: number;
  readonly system?: string | readonly AnthropicTextBlock[];
  readonly messages: readonly AnthropicMessage[];
  readonly temperature?: number;
  readonly top_p?: number;
  readonly stop_sequences?: readonly string[];
  readonly tools?: readonly AnthropicTool[];
  readonly tool_choice?: AnthropicToolChoice;
  readonly metadata?: { readonly user_id: string };
  readonly stream: boolean;
}

// ---- What the gateway reads -------------------------------------------------

/** Token counts; `message_delta` repeats them cumulatively (older API versions send only output_tokens there). */
export const anthropicUsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});

/** Any content block; text and tool_use are read, every other type (thinking, server tools…) is skipped. */
const contentBlockSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
});

export const anthropicMessageSchema = z.looseObject({
  id: z.string().optional(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string().optional(),
  content: z.array(contentBlockSchema),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: anthropicUsageSchema.nullish(),
});

export const textBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
export const toolUseBlockSchema = z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() });

/** Every stream event carries its type in the data as well as in the SSE `event:` field. */
export const streamEventHeadSchema = z.looseObject({ type: z.string() });

export const messageStartEventSchema = z.looseObject({
  type: z.literal('message_start'),
  message: z.looseObject({ usage: anthropicUsageSchema.nullish() }),
});

export const contentBlockStartEventSchema = z.looseObject({
  type: z.literal('content_block_start'),
  index: z.number(),
  content_block: contentBlockSchema,
});

export const contentBlockDeltaEventSchema = z.looseObject({
  type: z.literal('content_block_delta'),
  index: z.number(),
  delta: z.looseObject({ type: z.string(), text: z.string().optional(), partial_json: z.string().optional() }),
});

export const contentBlockStopEventSchema = z.looseObject({ type: z.literal('content_block_stop'), index: z.number() });

export const messageDeltaEventSchema = z.looseObject({
  type: z.literal('message_delta'),
  delta: z.looseObject({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }),
  usage: anthropicUsageSchema.nullish(),
});

/** `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, as an error body or a stream event. */
export const anthropicErrorSchema = z.looseObject({
  type: z.literal('error'),
  error: z.looseObject({ type: z.string(), message: z.string().optional() }),
});

export type AnthropicUsage = z.infer<typeof anthropicUsageSchema>;
export type AnthropicErrorBody = z.infer<typeof anthropicErrorSchema>;
