import type { ChatRequest } from '../../providers/contract.js';
import type { DecodedRequest } from '../surface-adapter.js';
import type { OpenAIChatRequestBody } from './openai-chat-request-schema.js';

/** A chat-completion body → the neutral call: OpenAI's shape is the gateway's own, so only the envelope comes off. */
export function decodeOpenAIChatRequest(body: OpenAIChatRequestBody): DecodedRequest {
  return { chatRequest: toChatRequest(body), model: body.model, stream: body.stream === true, includeUsage: body.stream_options?.include_usage === true };
}

/** The body in the gateway's shape: `model` and `stream` removed, JSON nulls dropped. */
export function toChatRequest(body: OpenAIChatRequestBody): ChatRequest {
  const { model: _model, stream: _stream, ...rest } = body;
  const request: Record<string, unknown> = {};
  // JSON null means "not set" for OpenAI's optional parameters.
  for (const [name, value] of Object.entries(rest)) if (value !== null) request[name] = value;
  return request as unknown as ChatRequest;
}
