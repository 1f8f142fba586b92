/**
 * The playground's JSON shapes (docs/dashboard-api.md, Playground), beside dashboard-api-types.ts, which re-exports
 * them, and under the same rule: this module imports nothing, since the web app compiles it with DOM types only.
 */

/** A routed answer's `_meta` (docs/api.md), as the playground shows it; the same for chat and embeddings. */
export interface RouterMetaView {
  /** `<provider>:<model>`. */
  readonly modelUsed: string;
  /** US dollars. */
  readonly cost: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  /** The router's strategy. */
  readonly routerDecision: string;
  readonly routerId: string;
  readonly requestId: string;
  readonly provider: string;
  readonly attempts: readonly { readonly model: string; readonly outcome: string; readonly reason?: string | undefined; readonly latencyMs: number }[];
}

/** POST /workspaces/:ws/playground/embeddings: OpenAI's embeddings body, `model` a router of the workspace. */
export interface PlaygroundEmbeddingsRequestView {
  readonly model: string;
  /** One input, or several (one vector each, in order). */
  readonly input: string | readonly string[];
  /** Shorter vectors, where the router's models can shorten them. @default the model's own length */
  readonly dimensions?: number | undefined;
  /** @default 'float' */
  readonly encoding_format?: 'float' | 'base64' | undefined;
}

/** One input's vector: numbers, or with `encoding_format: "base64"` little-endian 32-bit floats in base64. */
export interface EmbeddingItemView {
  readonly object: 'embedding';
  readonly index: number;
  readonly embedding: readonly number[] | string;
}

/** The answer of POST /workspaces/:ws/playground/embeddings: OpenAI's list, with `_meta`. */
export interface PlaygroundEmbeddingsView {
  readonly object: 'list';
  readonly data: readonly EmbeddingItemView[];
  /** The model that embedded, `<provider>:<model>`. */
  readonly model: string;
  readonly usage: { readonly prompt_tokens: number; readonly total_tokens: number };
  readonly _meta: RouterMetaView;
}
