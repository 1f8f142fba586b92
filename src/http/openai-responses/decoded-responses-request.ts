import type { DecodedRequest } from '../surface-adapter.js';
import type { ToolNames } from './convert-responses-tools.js';
import type { ResponseItem } from './openai-responses-request-schema.js';
import type { ResponseStore } from './response-store.js';

/** A Responses API request, decoded: the neutral call, and what the answer echoes and stores. */
export interface DecodedResponsesRequest extends DecodedRequest {
  readonly echo: ResponseEcho;
  /** Chat tool name → the Responses tool it stands for, to name the model's calls as the client defined them. */
  readonly toolNames: ToolNames;
  /** Whether the answer is to be stored (`store`, default true). */
  readonly store: boolean;
  /** What the answer is stored with: the previous response's items and output, then this request's input. */
  readonly inputItems: readonly ResponseItem[];
  readonly ownerId: string | undefined;
  readonly keyId: string | undefined;
}

/** The request parameters a response object repeats, defaults filled in as OpenAI fills them. */
export interface ResponseEcho {
  readonly instructions: string | null;
  readonly max_output_tokens: number | null;
  readonly parallel_tool_calls: boolean;
  readonly previous_response_id: string | null;
  readonly prompt_cache_key: string | null;
  readonly reasoning: { readonly effort: string | null; readonly summary: string | null };
  readonly safety_identifier: string | null;
  readonly store: boolean;
  readonly temperature: number;
  readonly text: Readonly<Record<string, unknown>>;
  readonly tool_choice: unknown;
  readonly tools: readonly unknown[];
  readonly top_p: number;
  readonly truncation: 'auto' | 'disabled';
  readonly user: string | null;
  readonly metadata: Readonly<Record<string, string>>;
}

/** What the surface works with beyond the request: where responses are stored (absent: nowhere), and the clock. */
export interface ResponsesContext {
  readonly store: ResponseStore | undefined;
  readonly now: () => number;
}
