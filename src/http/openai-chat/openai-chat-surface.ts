import type { SurfaceAdapter } from '../surface-adapter.js';
import { decodeOpenAIChatRequest } from './decode-openai-chat-request.js';
import { encodeOpenAIChatResponse } from './encode-openai-chat-response.js';
import type { OpenAIChatRequestBody } from './openai-chat-request-schema.js';
import { createOpenAIChatStreamEncoder } from './openai-chat-stream-encoder.js';

/** OpenAI chat completions (spec 2), the gateway's native surface: also the dashboard playground's. */
export const openAIChatSurface: SurfaceAdapter<OpenAIChatRequestBody> = {
  idPrefix: 'chatcmpl-',
  decode: decodeOpenAIChatRequest,
  encode: encodeOpenAIChatResponse,
  streamEncoder: (ids, model, request) => createOpenAIChatStreamEncoder(ids, model, request.includeUsage),
};
