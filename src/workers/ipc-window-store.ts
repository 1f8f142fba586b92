import cluster, { type Worker } from 'node:cluster';
import { createMemoryWindowStore } from '../limits/memory-window-store.js';
import type { WindowAdmission, WindowCheck, WindowStore } from '../limits/window-store.js';

/**
 * Rate-limit logs of the multi-process mode without Redis: the primary process
 * holds them (the in-process store, strict sliding windows), and every worker
 * asks it over Node's IPC channel. So a key's limit holds exactly across the
 * workers, whichever worker its connections land on.
 */

type Request =
  | { readonly op: 'admit'; readonly id: string; readonly checks: readonly WindowCheck[]; readonly now: number }
  | { readonly op: 'release'; readonly id: string; readonly subjects: readonly string[]; readonly at?: number | undefined }
  | { readonly op: 'adjust'; readonly id: string; readonly subject: string; readonly weight: number; readonly at?: number | undefined };

interface RequestMessage {
  readonly modelportWindow: 'request';
  readonly seq: number;
  readonly request: Request;
}

interface ReplyMessage {
  readonly modelportWindow: 'reply';
  readonly seq: number;
  readonly admission?: WindowAdmission;
  readonly error?: string;
}

const isRequest = (message: unknown): message is RequestMessage =>
  typeof message === 'object' && message !== null && (message as { modelportWindow?: unknown }).modelportWindow === 'request';
const isReply = (message: unknown): message is ReplyMessage =>
  typeof message === 'object' && message !== null && (message as { modelportWindow?: unknown }).modelportWindow === 'reply';

/**
 * The primary's side: answers every worker's window calls. Call once in the primary before forking. Returns what lets
 * go of expired entries (the primary's idle collector calls it).
 */
export function serveWindowStore(): { readonly dropExpired: (now: number) => number | undefined } {
  const store = createMemoryWindowStore();
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isRequest(message)) return;
    const { seq, request } = message;
    const answer = async (): Promise<ReplyMessage> => {
      if (request.op === 'admit') return { modelportWindow: 'reply', seq, admission: await store.admit(request.id, request.checks, request.now) };
      if (request.op === 'release') await store.release(request.id, request.subjects, request.at);
      else await store.adjust(request.id, request.subject, request.weight, request.at);
      return { modelportWindow: 'reply', seq };
    };
    answer().then(
      (reply) => worker.isConnected() && worker.send(reply),
      (error: unknown) => worker.isConnected() && worker.send({ modelportWindow: 'reply', seq, error: error instanceof Error ? error.message : String(error) }),
    );
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
}

/** A worker's store: every call goes to the primary ({@link serveWindowStore}). */
export function createIpcWindowStore(options: IpcWindowStoreOptions = {}): WindowStore {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const pending = new Map<number, { resolve: (reply: ReplyMessage) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  let seq = 0;
  process.on('message', (message: unknown) => {
    if (!isReply(message)) return;
    const waiting = pending.get(message.seq);
    if (waiting === undefined) return;
    pending.delete(message.seq);
    clearTimeout(waiting.timer);
    if (message.error !== undefined) waiting.reject(new Error(`rate limits (primary process): ${message.error}`));
    else waiting.resolve(message);
  });
  const call = (request: Request): Promise<ReplyMessage> =>
    new Promise((resolve, reject) => {
      if (process.send === undefined) {
        reject(new Error('rate limits: this process has no primary to ask (not a worker)'));
        return;
      }
      seq += 1;
      const id = seq;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`rate limits: the primary process did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      process.send({ modelportWindow: 'request', seq: id, request } satisfies RequestMessage);
    });
  return {
    async admit(id, checks, now) {
      const reply = await call({ op: 'admit', id, checks, now });
      if (reply.admission === undefined) throw new Error('rate limits: the primary answered without an admission');
      return reply.admission;
    },
    async release(id, subjects, at) {
      await call({ op: 'release', id, subjects, at });
    },
    async adjust(id, subject, weight, at) {
      await call({ op: 'adjust', id, subject, weight, at });
    },
  };
}
