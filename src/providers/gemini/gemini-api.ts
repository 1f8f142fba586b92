import { z } from 'zod';

/**
 * The Gemini API's generateContent wire format (Generative Language API, v1beta),
 * as far as the gateway writes and reads it. Unknown fields are allowed everywhere:
 * Google adds fields often (groundingMetadata, avgLogprobs, serviceTier…).
 * https://ai.google.dev/api/generate-content
 */

// ---- Request (written by the gateway, so plain types) ----

export type GeminiPart =
  | { readonly text: string; readonly thoughtSignature?: string }
  | { readonly inlineData: { readonly mimeType: string; readonly data: string } }
  | { readonly fileData: { readonly mimeType?: string; readonly fileUri: string } }
  | {
      readonly functionCall: { readonly name: string; readonly args: Record<string, unknown> };
      /** Gemini 3 asks for the signature it gave each call back; see convert-to-gemini-messages.ts. */
      readonly thoughtSignature?: string;
    }
  | { readonly functionResponse: { readonly name: string; readonly response: Record<string, unknown> } };

export interface GeminiContent {
  readonly role: 'user' | 'model';
  readonly parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description?: string;
  /** Plain JSON Schema, unlike `parameters` (an OpenAPI subset); the two are mutually exclusive. */
  readonly parametersJsonSchema?: Record<string, unknown>;
}

export interface GeminiToolConfig {
  readonly functionCallingConfig: { readonly mode: 'AUTO' | 'ANY' | 'NONE'; readonly allowedFunctionNames?: readonly string[] };
}

export interface GeminiGenerationConfig {
  readonly candidateCount: 1;
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxOutputTokens?: number;
  readonly stopSequences?: readonly string[];
  readonly seed?: number;
  readonly responseMimeType?: 'application/json';
  /** Plain JSON Schema, unlike `responseSchema` (an OpenAPI subset). */
  readonly responseJsonSchema?: Record<string, unknown>;
}

export interface GeminiGenerateContentRequest {
  readonly contents: readonly GeminiContent[];
  readonly systemInstruction?: { readonly parts: readonly { readonly text: string }[] };
  readonly tools?: readonly { readonly functionDeclarations: readonly GeminiFunctionDeclaration[] }[];
  readonly toolConfig?: GeminiToolConfig;
  readonly generationConfig: GeminiGenerationConfig;
}

// ---- Response (read by the gateway, so validated) ----

const partSchema = z.looseObject({
  text: z.string().nullish(),
  /** A thought summary: reasoning, not content. */
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  functionCall: z
    .looseObject({
      id: z.string().nullish(),
      name: z.string(),
      // A Struct; absent for a call without arguments.
      args: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
});

const tokenDetailsSchema = z.array(z.looseObject({ modality: z.string().optional(), tokenCount: z.number().optional() })).nullish();

export const geminiUsageSchema = z
  .looseObject({
    promptTokenCount: z.number().nullish(),
    candidatesTokenCount: z.number().nullish(),
    totalTokenCount: z.number().nullish(),
    cachedContentTokenCount: z.number().nullish(),
    thoughtsTokenCount: z.number().nullish(),
    toolUsePromptTokenCount: z.number().nullish(),
    promptTokensDetails: tokenDetailsSchema,
    cacheTokensDetails: tokenDetailsSchema,
    candidatesTokensDetails: tokenDetailsSchema,
  })
  .nullish();

const safetyRatingSchema = z.looseObject({
  category: z.string().nullish(),
  probability: z.string().nullish(),
  blocked: z.boolean().nullish(),
});

/** One GenerateContentResponse: the whole answer, or one chunk of a stream. */
export const geminiResponseSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        // Absent when a filter removed the content; `{}` when thinking used up maxOutputTokens.
        content: z.looseObject({ parts: z.array(partSchema).nullish(), role: z.string().nullish() }).nullish(),
        finishReason: z.string().nullish(),
        finishMessage: z.string().nullish(),
        index: z.number().nullish(),
        safetyRatings: z.array(safetyRatingSchema).nullish(),
      }),
    )
    .nullish(),
  promptFeedback: z.looseObject({ blockReason: z.string().nullish(), safetyRatings: z.array(safetyRatingSchema).nullish() }).nullish(),
  usageMetadata: geminiUsageSchema,
  modelVersion: z.string().nullish(),
  responseId: z.string().nullish(),
});

export type GeminiUsage = z.infer<typeof geminiUsageSchema>;
export type GeminiResponse = z.infer<typeof geminiResponseSchema>;
export type GeminiCandidate = NonNullable<GeminiResponse['candidates']>[number];

/** Google's error body (google.rpc.Status), sent with error statuses and, in a stream, as an event. */
export const geminiErrorSchema = z.looseObject({
  error: z.looseObject({
    code: z.number().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
    details: z
      .array(
        z.looseObject({
          '@type': z.string().optional(),
          /** google.rpc.ErrorInfo */
          reason: z.string().optional(),
          /** google.rpc.RetryInfo, a protobuf Duration such as "34s" or "1.5s" */
          retryDelay: z.string().optional(),
        }),
      )
      .optional(),
  }),
});

export type GeminiError = z.infer<typeof geminiErrorSchema>;
