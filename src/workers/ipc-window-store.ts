import cluster, { type Worker } from 'node:cluster';
import { createMemoryWindowStore, type MemoryWindowStore } from '../limits/memory-window-store.js';
import type { WindowAdmission, WindowCheck, WindowStore } from '../limits/window-store.js';

/**
 * Rate-limit logs of the multi-process mode without Redis: the primary process
 * holds them (the in-process store, strict sliding windows), and every worker
 * asks it over Node's IPC channel. So a key's limit holds exactly across the
 * workers, whichever worker its connections land on.
 *
 * A worker sends its calls in batches: every call made in one turn of its event loop goes in one message, sent from
 * `setImmediate` once the turn's I/O callbacks have run, and the primary answers a batch's admissions in one message.
 * Under load one round trip serves many requests (each message costs a JSON encoding, a write, a wake-up of the
 * primary and a read on each side); a lone request waits for no other. Releases and corrections need no answer: the
 * channel keeps their order, so the primary applies them before any later admission.
 */

type Call =
  | { readonly op: 'admit'; readonly id: string; readonly checks: readonly WindowCheck[]; readonly now: number }
  | { readonly op: 'release'; readonly id: string; readonly subjects: readonly string[]; readonly at?: number | undefined }
  | { readonly op: 'adjust'; readonly id: string; readonly subject: string; readonly weight: number; readonly at?: number | undefined };

interface BatchMessage {
  readonly modelportWindow: 'batch';
  /** Set when the batch holds admissions (they are answered); absent for releases and corrections only. */
  readonly seq?: number;
  readonly calls: readonly Call[];
}

/** One admission's answer: the admission, or why the primary could not make it. */
type Answer = { readonly admission: WindowAdmission } | { readonly error: string };

interface ReplyMessage {
  readonly modelportWindow: 'reply';
  readonly seq: number;
  /** The batch's admissions' answers, in the order of its admit calls. */
  readonly answers: readonly Answer[];
}

/** Where a store's messages go and come from: Node's IPC channel between a worker and the primary, or a test's pair. */
export interface WindowChannel {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
}

const isBatch = (message: unknown): message is BatchMessage =>
  typeof message === 'object' && message !== null && (message as { modelportWindow?: unknown }).modelportWindow === 'batch';
const isReply = (message: unknown): message is ReplyMessage =>
  typeof message === 'object' && message !== null && (message as { modelportWindow?: unknown }).modelportWindow === 'reply';

/**
 * The primary's work, without the transport: applies a batch's calls in order and returns the reply to send back
 * (undefined when the batch asked for none, or the message is not a batch).
 */
export function answerWindowBatch(store: MemoryWindowStore, message: unknown): ReplyMessage | undefined {
  if (!isBatch(message)) return undefined;
  const answers: Answer[] = [];
  for (const call of message.calls) {
    try {
      if (call.op === 'admit') answers.push({ admission: store.admit(call.id, call.checks, call.now) });
      else if (call.op === 'release') store.release(call.id, call.subjects, call.at);
      else store.adjust(call.id, call.subject, call.weight, call.at);
    } catch (error) {
      if (call.op === 'admit') answers.push({ error: error instanceof Error ? error.message : String(error) });
    }
  }
  return message.seq === undefined ? undefined : { modelportWindow: 'reply', seq: message.seq, answers };
}

/**
 * The primary's side: answers every worker's window calls. Call once in the primary before forking. Returns what lets
 * go of expired entries (the primary's idle collector calls it).
 */
export function serveWindowStore(): { readonly dropExpired: (now: number) => number | undefined } {
  const store = createMemoryWindowStore();
  cluster.on('message', (worker: Worker, message: unknown) => {
    const reply = answerWindowBatch(store, message);
    if (reply !== undefined && worker.isConnected()) worker.send(reply);
  });
  return { dropExpired: (now) => store.dropExpired(now) };
}

export interface IpcWindowStoreOptions {
  /**
   * How long a worker waits for the primary before the request fails: the primary
   * is then stuck or gone, and admitting without it could break a limit.
   * @default 2000
   */
  readonly timeoutMs?: number;
  /** @default this worker's IPC channel to the primary (`process.send`) */
  readonly channel?: WindowChannel;
}

/** This process's IPC channel to its primary. */
function primaryChannel(): WindowChannel {
  return {
    send(message) {
      if (process.send === undefined) throw new Error('rate limits: this process has no primary to ask (not a worker)');
      process.send(message);
    },
    onMessage(listener) {
      process.on('message', listener);
    },
  };
}

interface Waiting {
  readonly resolve: (admission: WindowAdmission) => void;
  readonly reject: (error: Error) => void;
}

/** A worker's store: every call goes to the primary ({@link serveWindowStore}), in batches. */
export function createIpcWindowStore(options: IpcWindowStoreOptions = {}): WindowStore {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const channel = options.channel ?? primaryChannel();
  const pending = new Map<number, { readonly admits: readonly Waiting[]; readonly timer: NodeJS.Timeout }>();
  let seq = 0;
  let calls: Call[] = [];
  let admits: Waiting[] = [];
  let flushing = false;

  /** Takes a batch out of `pending` (its answer came, its time ran out, or it could not be sent): its admissions. */
  const settle = (id: number): readonly Waiting[] => {
    const batch = pending.get(id);
    if (batch === undefined) return [];
    pending.delete(id);
    clearTimeout(batch.timer);
    return batch.admits;
  };

  channel.onMessage((message) => {
    if (!isReply(message)) return;
    settle(message.seq).forEach((waiting, index) => {
      const answer = message.answers[index];
      if (answer === undefined) waiting.reject(new Error('rate limits: the primary answered without an admission'));
      else if ('error' in answer) waiting.reject(new Error(`rate limits (primary process): ${answer.error}`));
      else waiting.resolve(restoreInfinity(answer.admission));
    });
  });

  const flush = (): void => {
    flushing = false;
    const batch = calls;
    calls = [];
    // Only a batch with admissions is answered; releases and corrections alone go without a sequence number.
    const id = admits.length === 0 ? undefined : (seq += 1);
    if (id !== undefined) {
      const timer = setTimeout(() => {
        for (const one of settle(id)) one.reject(new Error(`rate limits: the primary process did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { admits, timer });
      admits = [];
    }
    try {
      channel.send({ modelportWindow: 'batch', ...(id === undefined ? {} : { seq: id }), calls: batch } satisfies BatchMessage);
    } catch (error) {
      // A closed channel: the primary is gone, and this worker ends with it (a cluster worker exits when its IPC
      // channel closes). Waiting admissions fail; releases and corrections went with the primary's logs.
      if (id !== undefined) for (const one of settle(id)) one.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };

  const enqueue = (call: Call): void => {
    calls.push(call);
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  };

  return {
    admit(id, checks, now) {
      return new Promise<WindowAdmission>((resolve, reject) => {
        enqueue({ op: 'admit', id, checks, now });
        admits.push({ resolve, reject });
      });
    },
    release(id, subjects, at) {
      enqueue({ op: 'release', id, subjects, at });
    },
    adjust(id, subject, weight, at) {
      enqueue({ op: 'adjust', id, subject, weight, at });
    },
  };
}

/**
 * Node's IPC channel encodes messages as JSON, which writes a non-finite number as null: a refusal whose weight
 * alone is over the limit (`retryAfterMs: Infinity`, "never") would arrive as 0, "now".
 */
function restoreInfinity(admission: WindowAdmission): WindowAdmission {
  if (admission.results.every((result) => typeof result.retryAfterMs === 'number')) return admission;
  return { ...admission, results: admission.results.map((result) => (typeof result.retryAfterMs === 'number' ? result : { ...result, retryAfterMs: Number.POSITIVE_INFINITY })) };
}
