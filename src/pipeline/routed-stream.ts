import type { GatewayError } from '../lib/errors.js';
import type { FinishReason, Usage } from '../providers/contract.js';
import { chargeCall, settleCall } from './call-settlement.js';
import type { CallState } from './call-state.js';
import { accountStream, streamRoute, type StartedStream } from './route-and-call.js';
import { noteAccount, noteAutoRoute, type PipelineDependencies, type PreparedCall } from './routed-call.js';
import { routerMeta, type RouterMeta } from './router-meta.js';

/**
 * The streamed half of the pipeline. The upstream's first part is awaited inside
 * the fallback loop, so a model that fails before its first byte is replaced
 * invisibly and the client still gets a plain JSON error if none answers. After
 * that the surface relays parts in its wire format and hands back how the relay
 * ended; accounting, the charge and the usage record are then the same as for a
 * whole answer.
 */

/** How a relayed stream ended, for accounting and its last events. */
export interface RelayedStream {
  /**
   * The answer's text (and tool-call names and arguments), for counting tokens when the provider gives none:
   * empty once it gave usage, unless the relay kept the text.
   */
  readonly generated: string;
  /** `stop` when the upstream sent no finish part. */
  readonly finishReason: FinishReason;
  readonly usage: Usage | undefined;
  /** Set when the stream broke after it had started. */
  readonly failure: GatewayError | undefined;
}

/** A finished stream, accounted and settled. */
export interface StreamEnd<M = RouterMeta> {
  /** `stop` when the upstream sent no finish part. */
  readonly finishReason: FinishReason;
  /** The provider's counts, or the tokenizer's when it gave none. */
  readonly usage: Usage;
  readonly meta: M;
}

/** Opens the model's stream with fallback; resolves at its first part. */
export function openCallStream(call: CallState, prepared: PreparedCall, deps: PipelineDependencies): Promise<StartedStream> {
  call.streamed = true;
  return streamRoute(prepared, prepared.chatRequest, deps, { startedAt: call.startedAt, signal: prepared.signal });
}

/**
 * Accounts a stream that ended (or broke), charges it, and settles the call: its usage record says how it ended.
 * Gives what the stream's last events carry.
 */
export async function finishCallStream(call: CallState, prepared: PreparedCall, started: StartedStream, relayed: RelayedStream, deps: PipelineDependencies): Promise<StreamEnd> {
  const account = accountStream(started, prepared.chatRequest, relayed);
  noteAccount(call, started.model.id, account, started.attempts.length);
  noteAutoRoute(call, prepared, started.model.id, account.usage);
  const failure = relayed.failure;
  const broken = failure === undefined ? undefined : { code: failure.code, status: failure.status };
  const meta = routerMeta(call, prepared, started.model, account, started.attempts, started.firstAt, broken);
  // The stream's real cost (its usage, or counted tokens) is charged before its last event, a broken one's too.
  await chargeCall(deps, call.key?.id, prepared.router.id, account.costUsd, prepared.log);
  settleCall(call, failure === undefined ? 200 : failure.status, failure === undefined ? null : failure.code, deps);
  return { finishReason: relayed.finishReason, usage: account.usage, meta };
}
