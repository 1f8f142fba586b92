import { z } from 'zod';

/**
 * Bedrock's Converse and ConverseStream wire format, as far as the gateway
 * writes and reads it. Unknown fields are allowed everywhere: AWS adds fields
 * (reasoningContent, citations, cacheDetails…) and pads stream events with `p`.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */

// ---- Request (written by the gateway: types only) ----

export type BedrockImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface BedrockImageBlock {
  /** `bytes` is base64 in the JSON protocol. */
  readonly image: { readonly format: BedrockImageFormat; readonly source: { readonly bytes: string } };
}
export interface BedrockTextBlock {
  readonly text: string;
}
export interface BedrockToolUseBlock {
  readonly toolUse: { readonly toolUseId: string; readonly name: string; readonly input: unknown };
}
export type BedrockToolResultContent = BedrockTextBlock | { readonly json: unknown } | BedrockImageBlock;
export interface BedrockToolResultBlock {
  readonly toolResult: { readonly toolUseId: string; readonly content: readonly BedrockToolResultContent[] };
}

export type BedrockUserBlock = BedrockTextBlock | BedrockImageBlock | BedrockToolResultBlock;
export type BedrockAssistantBlock = BedrockTextBlock | BedrockToolUseBlock;

export type BedrockMessage =
  | { readonly role: 'user'; readonly content: readonly BedrockUserBlock[] }
  | { readonly role: 'assistant'; readonly content: readonly BedrockAssistantBlock[] };

export interface BedrockToolSpec {
  readonly toolSpec: { readonly name: string; readonly description?: string; readonly inputSchema: { readonly json: unknown } };
}

export type BedrockToolChoice = { readonly auto: Record<string, never> } | { readonly any: Record<string, never> } | { readonly tool: { readonly name: string } };

export interface BedrockInferenceConfig {
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stopSequences?: readonly string[];
}

/** The body of POST /model/{modelId}/converse and /converse-stream (the model is in the path). */
export interface BedrockConverseRequest {
  readonly messages: readonly BedrockMessage[];
  readonly system?: readonly BedrockTextBlock[];
  readonly inferenceConfig?: BedrockInferenceConfig;
  readonly toolConfig?: { readonly tools: readonly BedrockToolSpec[]; readonly toolChoice?: BedrockToolChoice };
}

// ---- Response (read by the gateway: validated) ----

/** https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html */
export const bedrockUsageSchema = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  cacheReadInputTokens: z.number().nullish(),
  cacheWriteInputTokens: z.number().nullish(),
});
export type BedrockUsage = z.infer<typeof bedrockUsageSchema>;

const contentBlockSchema = z.looseObject({
  text: z.string().optional(),
  toolUse: z.looseObject({ toolUseId: z.string(), name: z.string(), input: z.unknown() }).optional(),
});

export const bedrockConverseResponseSchema = z.looseObject({
  output: z.looseObject({
    message: z.looseObject({ role: z.string().optional(), content: z.array(contentBlockSchema) }),
  }),
  stopReason: z.string(),
  usage: bedrockUsageSchema.nullish(),
});
export type BedrockConverseResponse = z.infer<typeof bedrockConverseResponseSchema>;

// ConverseStream events: each message's `:event-type` header names the event; its payload is the event's members.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html

export const messageStartEventSchema = z.looseObject({ role: z.string() });

export const contentBlockStartEventSchema = z.looseObject({
  contentBlockIndex: z.number(),
  start: z.looseObject({ toolUse: z.looseObject({ toolUseId: z.string(), name: z.string() }).optional() }).optional(),
});

export const contentBlockDeltaEventSchema = z.looseObject({
  contentBlockIndex: z.number(),
  delta: z.looseObject({
    text: z.string().optional(),
    toolUse: z.looseObject({ input: z.string() }).optional(),
  }),
});

export const contentBlockStopEventSchema = z.looseObject({ contentBlockIndex: z.number() });

export const messageStopEventSchema = z.looseObject({ stopReason: z.string() });

export const metadataEventSchema = z.looseObject({
  usage: bedrockUsageSchema.optional(),
  metrics: z.looseObject({ latencyMs: z.number().optional() }).optional(),
});

/** The body of an error answer and of a stream's exception message. */
export const bedrockErrorBodySchema = z.looseObject({
  message: z.string().nullish(),
  Message: z.string().nullish(),
  __type: z.string().nullish(),
  originalStatusCode: z.number().nullish(),
});
export type BedrockErrorBody = z.infer<typeof bedrockErrorBodySchema>;
