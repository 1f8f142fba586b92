import { createParser } from 'eventsource-parser';
import { ApiError, type ApiClient } from './client';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface StreamChatOptions {
  readonly api: ApiClient;
  readonly path: string;
  /** A chat body (`model`, `messages`…), or an agent run's `{ input }`. */
  readonly body: { readonly model: string; readonly messages: readonly ChatMessage[]; readonly temperature?: number } | { readonly input: string };
  readonly signal?: AbortSignal;
  /** Each piece of the answer as it arrives. */
  onDelta(text: string): void;
}

export interface StreamChatResult {
  readonly meta: Record<string, unknown> | null;
  /** False when the stream ended without `[DONE]`, e.g. broken upstream. */
  readonly complete: boolean;
}

interface ChunkShape {
  readonly choices?: readonly { readonly delta?: { readonly content?: string | null } }[];
  readonly _meta?: Record<string, unknown>;
  readonly error?: { readonly message: string; readonly type: string; readonly code: string };
}

/**
 * POSTs a streamed chat completion and reads OpenAI's SSE chunks with eventsource-parser:
 * text deltas go to `onDelta`, the `_meta` of the last chunk is returned, an error event throws.
 */
export async function streamChat(options: StreamChatOptions): Promise<StreamChatResult> {
  const response = await options.api.stream(options.path, { ...options.body, stream: true }, options.signal);
  if (response.body === null) throw new ApiError(0, { message: 'The server sent an empty answer.', type: 'network_error', code: 'empty_body' });
  let meta: Record<string, unknown> | null = null;
  let complete = false;
  let failure: ApiError | null = null;
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]') {
        complete = true;
        return;
      }
      let chunk: ChunkShape;
      try {
        chunk = JSON.parse(event.data) as ChunkShape;
      } catch {
        return;
      }
      if (chunk.error !== undefined) {
        failure = new ApiError(502, chunk.error);
        return;
      }
      const text = chunk.choices?.[0]?.delta?.content;
      if (typeof text === 'string' && text !== '') options.onDelta(text);
      if (chunk._meta !== undefined) meta = chunk._meta;
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  if (failure !== null) throw failure;
  return { meta, complete };
}
