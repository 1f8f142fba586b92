import type { ErrorClass, ProviderCredentials, ProviderPreset, ScriptedError } from './conformance-target.js';

/**
 * What the embedding conformance suite (embedding-conformance.ts) needs from one
 * wire format, as conformance-target.ts says it for chat: how to start its fake,
 * how to script vectors or a failure in that format's own bytes, how to read back
 * what reached the fake, and the few facts the format decides for itself.
 */

export interface ScriptedEmbeddings {
  /** The texts the next call embeds (a format that calls once per input answers each by its text). */
  readonly inputs: readonly string[];
  /** One vector per input, in input order. */
  readonly vectors: readonly (readonly number[])[];
  /** Token counts per input, for formats that report them. */
  readonly promptTokens: readonly number[];
}

/** One input as it reached the fake, in the neutral terms. */
export interface SentInput {
  readonly input: string | readonly number[];
  readonly dimensions: number | undefined;
}

export interface RunningEmbeddingFake {
  readonly credentials: ProviderCredentials;
  /** Credentials the fake refuses, and the secret in them (which no error message may repeat). */
  readonly wrongCredentials: { readonly credentials: ProviderCredentials; readonly secret: string } | undefined;
  /** The same credentials pointed at another origin (`http://host:port`). */
  credentialsAt(origin: string): ProviderCredentials;
  answer(script: ScriptedEmbeddings): void;
  /** The next call fails with the format's answer for this class. */
  error(errorClass: ErrorClass): ScriptedError;
  /** A 200 whose body is not this format. */
  malformed(): void;
  /** Read the request, then never answer. */
  hang(): void;
  /** Every input that reached the fake since the last reset, in arrival order of the calls. */
  sent(): readonly SentInput[];
  reset(): void;
  close(): Promise<void>;
}

export interface EmbeddingConformanceTarget {
  readonly name: string;
  readonly preset: ProviderPreset;
  readonly modelId: string;
  /** The model the fake's default vectors are seeded by (an Azure deployment's model, not its name). */
  readonly vectorModel: string;
  /** A length the model can shorten its vectors to. */
  readonly shortDimensions: number;
  start(): Promise<RunningEmbeddingFake>;
  /** Whether the format takes token arrays (only OpenAI's does). */
  readonly tokenArrays: boolean;
  /** Whether the format reports a token count (Gemini's does not). */
  readonly reportsUsage: boolean;
  /** The status the fake answers unknown credentials with, or a reason there are none to refuse. */
  readonly refusedCredentials: { readonly status: number } | { readonly skip: string };
}
