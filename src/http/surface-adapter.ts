import type { ModelInfo } from '../catalog/catalog.js';
import type { GatewayError } from '../lib/errors.js';
import type { MaybePromise } from '../lib/maybe-promise.js';
import type { AssistantMessage, ChatRequest, FinishReason, StreamPart, Usage } from '../providers/contract.js';
import type { StreamEnd } from '../pipeline/routed-stream.js';

/**
 * What an inbound surface (OpenAI chat completions, Anthropic Messages, …) is
 * to the gateway: a decoder of its wire request into the neutral call, and
 * encoders of the neutral answer and stream parts back into its wire format,
 * `_meta` included. Everything between (limits, budgets, routing, fallback,
 * accounting, usage records) is the pipeline's, identical for every surface.
 * Each surface is a folder under src/http/ with the same files:
 *   `<surface>-routes.ts`          its paths, registered on the one routed handler (routed-endpoint.ts)
 *   `<surface>-request-schema.ts`  its request body, validated by Fastify
 *   `decode-<surface>-request.ts`  wire request → DecodedRequest
 *   `encode-<surface>-response.ts` WholeAnswer → wire body
 *   `<surface>-stream-encoder.ts`  stream parts → wire SSE events
 *   `<surface>-errors.ts`          GatewayError → wire error body
 *   `<surface>-surface.ts`         the SurfaceAdapter that ties them together
 */

/** A surface's request in the neutral shape. */
export interface DecodedRequest {
  /** The request in the gateway's (OpenAI) shape, `model` and `stream` removed. */
  readonly chatRequest: ChatRequest;
  /** The body's `model`: a router id, or `agent:<name>`; a router id in the path wins over it. */
  readonly model: string | null | undefined;
  readonly stream: boolean;
  /** OpenAI's `stream_options.include_usage`: the stream ends with a usage chunk. */
  readonly includeUsage: boolean;
}

/** What names an answer. */
export interface AnswerIds {
  /** `chatcmpl-…`, `msg_…`: completion-id.ts. */
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  readonly requestId: string;
  /** The prompt size routing used, before any provider counted (0 for an agent's answer). */
  readonly estimatedPromptTokens: number;
}

/** A whole (non-streamed) answer in the neutral shape; `M` is its `_meta` (a router's or an agent's). */
export interface WholeAnswer<M> {
  readonly ids: AnswerIds;
  /** The model that answered, `<provider>:<model>`. */
  readonly model: string;
  readonly message: AssistantMessage;
  readonly finishReason: FinishReason;
  readonly usage: Usage;
  readonly systemFingerprint: string | null | undefined;
  readonly meta: M;
}

/**
 * One surface's SSE framing. Every method returns whole SSE events
 * (`data: …\n\n`, `event: …\ndata: …\n\n`), written in order with backpressure.
 */
export interface StreamEncoder<M> {
  /** What is sent as soon as a model has started answering. */
  start(): readonly string[];
  part(part: StreamPart): readonly string[];
  /** The last events; a promise when the surface keeps something of the answer first (a stored response). */
  end(end: StreamEnd<M>): MaybePromise<readonly string[]>;
  /** The last events of a stream that broke after it had started. */
  fail(error: GatewayError, meta: M): MaybePromise<readonly string[]>;
}

/** What a surface knows of the caller when it decodes (its owner scopes what a request may refer to). */
export interface DecodeContext {
  /** The key's owner; undefined where the caller is not known yet (the dashboard authorises after decoding). */
  readonly ownerId: string | undefined;
  /** The caller's key (a stored response names the key that made it); undefined where not known yet. */
  readonly keyId?: string | undefined;
  readonly requestId: string;
}

/**
 * `Decoded` is the surface's own decoded request: the neutral fields, and whatever else it needs again to encode
 * the answer (e.g. the Responses API's instructions and tools, echoed in its response object).
 */
export interface SurfaceAdapter<Body, Decoded extends DecodedRequest = DecodedRequest> {
  /** Prefix of the answer's id: `chatcmpl-` for OpenAI, `msg_` for Anthropic. */
  readonly idPrefix: string;
  /** A promise only when the surface must read something first (a stored conversation). */
  decode(body: Body, context: DecodeContext): MaybePromise<Decoded>;
  /** A promise only when the surface keeps something of the answer before it is sent. */
  encode<M>(answer: WholeAnswer<M>, request: Decoded): MaybePromise<unknown>;
  /** The stream's encoder, once the model that answers is known (its id goes into the events). */
  streamEncoder<M>(ids: AnswerIds, model: ModelInfo, request: Decoded): StreamEncoder<M>;
}
