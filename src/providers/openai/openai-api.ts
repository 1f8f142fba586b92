import { z } from 'zod';

/**
 * Zod schemas of OpenAI's chat-completions wire format, as far as the gateway
 * reads it. Unknown fields are allowed everywhere: OpenAI adds fields often.
 * https://platform.openai.com/docs/api-reference/chat/object
 */
const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function').optional().default('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const openAIUsageSchema = z
  .looseObject({
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
    total_tokens: z.number().optional(),
    prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
    completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
  })
  .nullish();

export const openAIChatResponseSchema = z.looseObject({
  id: z.string().nullish(),
  system_fingerprint: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        message: z.looseObject({
          role: z.string().nullish(),
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z.array(toolCallSchema).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: openAIUsageSchema,
});

export const openAIChunkSchema = z.looseObject({
  id: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        delta: z
          .looseObject({
            role: z.string().nullish(),
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number(),
                  id: z.string().nullish(),
                  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .optional()
    .default([]),
  usage: openAIUsageSchema,
});

export type OpenAIUsage = z.infer<typeof openAIUsageSchema>;
export type OpenAIChatResponse = z.infer<typeof openAIChatResponseSchema>;
export type OpenAIChunk = z.infer<typeof openAIChunkSchema>;

/** An error a stream may carry in place of a chunk. */
export const openAIStreamErrorSchema = z.looseObject({
  error: z.looseObject({ message: z.string().optional(), type: z.string().nullish(), code: z.unknown() }),
});
export type OpenAIStreamError = z.infer<typeof openAIStreamErrorSchema>;
