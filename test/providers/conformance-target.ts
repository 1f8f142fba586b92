import type { FinishReason } from '../../src/providers/contract.js';
import type { createChatModelFor } from '../../src/providers/model-factory.js';

/**
 * What the provider conformance suite (provider-conformance.ts) needs from one
 * wire format: how to start its fake upstream, how to script an answer or a
 * failure in that format's own bytes, and the few facts the format decides for
 * itself (its finish reasons, the status it refuses credentials with). The
 * suite speaks only in the neutral terms below; each target translates them.
 */

export type ProviderPreset = Parameters<typeof createChatModelFor>[0];
export type ProviderCredentials = Parameters<typeof createChatModelFor>[1];

export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** Token counts as the contract reports them; each target writes them the way its format counts. */
export interface ScriptedUsage {
  /** The whole prompt, cached tokens included. */
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens read from the provider's cache. */
  readonly cachedPromptTokens?: number;
}

/**
 * How a streamed answer stops short, after `afterTextPieces` text pieces went out:
 * `reset` the TCP connection, `stall` (send nothing more, never finish), or
 * `end` the body cleanly without the format's finish.
 */
export interface ScriptedCut {
  readonly afterTextPieces: number;
  readonly how: 'reset' | 'stall' | 'end';
}

export interface ScriptedAnswer {
  /** The text, cut into the pieces a stream sends. */
  readonly text: readonly string[];
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** The format's own finish value (`end_turn`, `MAX_TOKENS`…). @default the format's natural one */
  readonly finishReason?: string;
  readonly usage: ScriptedUsage;
  readonly cut?: ScriptedCut;
}

/** Error answers every format has, by what they mean. */
export type ErrorClass = 'invalid-request' | 'forbidden' | 'not-found' | 'rate-limited' | 'server-error' | 'unavailable';

/** What the target put on the wire for an error class. */
export interface ScriptedError {
  readonly status: number;
  /** The wait the answer carries, in ms, or undefined when this format's answer carries none. */
  readonly retryAfterMs: number | undefined;
}

export interface FinishReasonCase {
  /** The value on the wire. */
  readonly wire: string;
  readonly expected: FinishReason;
  /** The answer carries a tool call (formats that say "tool calls" only by sending one). */
  readonly withToolCall?: boolean;
}

/** One started fake upstream; each method scripts the next request's answer. */
export interface RunningFake {
  readonly credentials: ProviderCredentials;
  /** Credentials the fake refuses, and the secret in them (which no error message may repeat). */
  readonly wrongCredentials: { readonly credentials: ProviderCredentials; readonly secret: string } | undefined;
  /** The same credentials pointed at another origin (`http://host:port`). */
  credentialsAt(origin: string): ProviderCredentials;
  answer(script: ScriptedAnswer): void;
  error(errorClass: ErrorClass): ScriptedError;
  /**
   * A stream that sends `text[0..afterTextPieces)` and then the format's own error
   * event for an overloaded upstream; returns the status that event carries, if any.
   */
  failMidStream(text: readonly string[], afterTextPieces: number): { readonly status: number | undefined };
  /** A 200 whose body is not this format (`stream`: as the streamed call's body). */
  malformed(stream: boolean): void;
  /** Read the request, then never answer. */
  hang(): void;
  reset(): void;
  close(): Promise<void>;
}

export interface ConformanceTarget {
  /** The name the suite is reported under. */
  readonly name: string;
  readonly preset: ProviderPreset;
  readonly modelId: string;
  start(): Promise<RunningFake>;
  /** Every finish value the format has, with the neutral reason it means. */
  readonly finishReasons: readonly FinishReasonCase[];
  /** Neutral reasons this format has no way to say. */
  readonly inexpressibleFinishReasons: readonly FinishReason[];
  /** The status the fake answers unknown credentials with, or a reason there are none to refuse. */
  readonly refusedCredentials: { readonly status: number } | { readonly skip: string };
  /** `whole`: the format streams each tool call's arguments in one piece. */
  readonly toolArgumentsStreamed: 'pieces' | 'whole';
}
