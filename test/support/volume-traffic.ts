import { once } from 'node:events';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';
import { openAIErrors, startFakeOpenAI, type FakeBehaviour, type FakeHandler, type RecordedRequest } from './fake-openai.js';

/**
 * Volume traffic through a gateway under test, with both ends on worker threads of their own so that the gateway
 * keeps the test's event loop to itself: the fake OpenAI upstream (fake-openai.ts), and a client sending chat
 * requests over kept-alive connections and summing what the answers say. Each prompt carries its request's index;
 * the upstream's usage follows from it (answers cost different amounts), and one request in `failEvery` gets
 * OpenAI's 500.
 */

export interface VolumeUpstream {
  /** e.g. http://127.0.0.1:PORT/v1, what OPENAI_BASE_URL takes. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

export interface VolumeTrafficOptions {
  /** The gateway, e.g. http://127.0.0.1:PORT. */
  readonly origin: string;
  /** e.g. /api/router/<id>/chat/completions */
  readonly path: string;
  readonly apiKey: string;
  readonly requests: number;
  /** Connections, each with one request in flight. */
  readonly connections: number;
}

/** What the answers said, summed. */
export interface VolumeTotals {
  readonly requests: number;
  /** Answers with a status of 400 or more. */
  readonly errors: number;
  /** Every answer's `_meta.cost` in units of 1e-10 USD, rounded one by one, summed as integers. */
  readonly costUnits: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Answers per HTTP status. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly elapsedMs: number;
}

/** Whether request `index` gets the upstream's 500. */
export function volumeFails(index: number, failEvery: number): boolean {
  return index % failEvery === failEvery - 1;
}

/** The tokens the upstream reports for request `index`: varied, some read from the prompt cache. */
function volumeUsage(index: number): { prompt_tokens: number; completion_tokens: number; cached_tokens?: number } {
  return {
    prompt_tokens: 7 + (index % 211),
    completion_tokens: 1 + ((index * 7) % 97),
    ...(index % 5 === 0 ? { cached_tokens: 3 + (index % 4) } : {}),
  };
}

const PROMPT_INDEX = /volume request (\d+)/;
/** The fake records every request; it is emptied this often so that hundreds of thousands are not held. */
const FORGET_EVERY = 2_000;

function behaviourFor(request: RecordedRequest, failEvery: number): FakeBehaviour {
  const match = PROMPT_INDEX.exec(request.rawBody);
  if (match === null) return openAIErrors.badRequest('fake: no request index in the prompt', 'messages', null);
  const index = Number(match[1]);
  if (volumeFails(index, failEvery)) return openAIErrors.serverError();
  return { type: 'answer', content: 'ok', usage: volumeUsage(index) };
}

type Job = { readonly role: 'upstream'; readonly apiKey: string; readonly failEvery: number } | ({ readonly role: 'client' } & VolumeTrafficOptions);

/** This file on a worker thread, with tsx registered first: Node 20 does not pass the parent's loader hooks on. */
function startWorker(job: Job): Worker {
  const source = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
  return new Worker(source, { eval: true, workerData: job });
}

async function firstMessage<T>(worker: Worker): Promise<T> {
  const [message] = (await Promise.race([once(worker, 'message'), once(worker, 'error').then(([error]) => Promise.reject(error as Error))])) as [T];
  return message;
}

/** Starts the upstream; resolves once it listens. It accepts `apiKey`; requests whose index is `failEvery - 1` modulo `failEvery` get a 500. */
export async function startVolumeUpstream(options: { readonly apiKey: string; readonly failEvery: number }): Promise<VolumeUpstream> {
  const worker = startWorker({ role: 'upstream', ...options });
  const { baseUrl } = await firstMessage<{ baseUrl: string }>(worker);
  return {
    baseUrl,
    async close() {
      const exited = once(worker, 'exit');
      worker.postMessage('close');
      await exited;
    },
  };
}

/** Sends `requests` chat requests, request i with prompt "volume request i"; resolves with the answers' sums. */
export async function sendVolumeTraffic(options: VolumeTrafficOptions): Promise<VolumeTotals> {
  const worker = startWorker({ role: 'client', ...options });
  const result = await firstMessage<{ totals: VolumeTotals } | { error: string }>(worker);
  if ('error' in result) throw new Error(`volume client: ${result.error}`);
  return result.totals;
}

async function serveUpstream(job: Extract<Job, { role: 'upstream' }>): Promise<void> {
  const fake = await startFakeOpenAI({ apiKey: job.apiKey });
  let served = 0;
  const handler: FakeHandler = (request) => {
    served += 1;
    if (served % FORGET_EVERY === 0) {
      fake.reset();
      fake.setHandler(handler);
    }
    return behaviourFor(request, job.failEvery);
  };
  fake.setHandler(handler);
  parentPort?.on('message', (message) => {
    if (message === 'close') void fake.close().then(() => parentPort?.close());
  });
  parentPort?.postMessage({ baseUrl: fake.baseUrl });
}

interface Answer {
  readonly usage?: { readonly prompt_tokens?: number; readonly completion_tokens?: number };
  readonly _meta?: { readonly cost?: number };
}

async function sendRequests(job: Extract<Job, { role: 'client' }>): Promise<VolumeTotals> {
  const pool = new Pool(job.origin, { connections: job.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${job.apiKey}` };
  const totals = { requests: 0, errors: 0, costUnits: 0, promptTokens: 0, completionTokens: 0 };
  const statuses: Record<string, number> = {};
  let next = 0;
  const loop = async () => {
    for (let index = next++; index < job.requests; index = next++) {
      const body = JSON.stringify({ messages: [{ role: 'user', content: `volume request ${index}` }] });
      const response = await pool.request({ path: job.path, method: 'POST', headers, body });
      const answer = (await response.body.json()) as Answer;
      totals.requests += 1;
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
      if (response.statusCode >= 400) totals.errors += 1;
      totals.costUnits += Math.round((answer._meta?.cost ?? 0) * 1e10);
      totals.promptTokens += answer.usage?.prompt_tokens ?? 0;
      totals.completionTokens += answer.usage?.completion_tokens ?? 0;
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: job.connections }, loop));
  } finally {
    await pool.close();
  }
  return { ...totals, statuses, elapsedMs: performance.now() - started };
}

if (!isMainThread && typeof (workerData as Partial<Job> | null)?.role === 'string') {
  const job = workerData as Job;
  if (job.role === 'upstream') await serveUpstream(job);
  else {
    await sendRequests(job).then(
      (totals) => parentPort?.postMessage({ totals }),
      (error: unknown) => parentPort?.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  }
}
