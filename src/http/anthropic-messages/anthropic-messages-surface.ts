import type { SurfaceAdapter } from '../surface-adapter.js';
import type { AnthropicRequestBody } from './anthropic-messages-request-schema.js';
import { createAnthropicStreamEncoder } from './anthropic-messages-stream-encoder.js';
import { decodeAnthropicMessagesRequest } from './decode-anthropic-messages-request.js';
import { encodeAnthropicMessagesResponse } from './encode-anthropic-messages-response.js';

/** Anthropic's Messages API (Claude's SDKs, Claude Code): routers only; agents answer on chat completions. */
export const anthropicMessagesSurface: SurfaceAdapter<AnthropicRequestBody> = {
  idPrefix: 'msg_',
  decode: decodeAnthropicMessagesRequest,
  encode: encodeAnthropicMessagesResponse,
  streamEncoder: (ids, model) => createAnthropicStreamEncoder(ids, model),
};
