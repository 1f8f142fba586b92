import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { createMemoryWindowStore } from '../limits/memory-window-store.js';
import type { WindowAdmission, WindowCheck } from '../limits/window-store.js';
import { answerWindowBatch, createIpcWindowStore, type WindowChannel } from './ipc-window-store.js';

/**
 * A worker's end of a real message channel to a primary in this process. Messages go through JSON as Node's IPC
 * channel sends them (`serialization: 'json'`, the default), so what JSON changes is changed here too.
 */
function channelTo(port: MessagePort, sent: unknown[]): WindowChannel {
  return {
    send(message) {
      sent.push(message);
      port.postMessage(JSON.stringify(message));
    },
    onMessage(listener) {
      port.on('message', (text: string) => listener(JSON.parse(text)));
    },
  };
}

/** A primary holding one memory store, and `workers` worker-side stores connected to it. */
function fleet(workers: number, options: { silentPrimary?: boolean; timeoutMs?: number } = {}) {
  const store = createMemoryWindowStore();
  const ports: MessagePort[] = [];
  const sent: unknown[][] = [];
  const stores = Array.from({ length: workers }, () => {
    const { port1: workerEnd, port2: primaryEnd } = new MessageChannel();
    ports.push(workerEnd, primaryEnd);
    primaryEnd.on('message', (text: string) => {
      const reply = answerWindowBatch(store, JSON.parse(text));
      if (reply !== undefined && options.silentPrimary !== true) primaryEnd.postMessage(JSON.stringify(reply));
    });
    const messages: unknown[] = [];
    sent.push(messages);
    return createIpcWindowStore({ channel: channelTo(workerEnd, messages), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) });
  });
  return { store, stores, sent, close: () => ports.forEach((port) => port.close()) };
}

const rpm = (limit: number, weight = 1): WindowCheck => ({ subject: 'key:k1:rpm', limit, weight, windowMs: 60_000 });
const closers: Array<() => void> = [];
after(() => closers.forEach((close) => close()));

describe('the workers\' rate-limit store (IPC to the primary)', () => {
  it('sends the admissions of one turn in one message and answers each, and a limit holds across workers', async () => {
    const { stores, sent, close } = fleet(2);
    closers.push(close);
    const [first, second] = stores as [ReturnType<typeof createIpcWindowStore>, ReturnType<typeof createIpcWindowStore>];
    const now = 1_000_000;
    // Four from one worker and three from the other, all in this turn: a limit of 5 for the fleet.
    const admissions = (await Promise.all([
      ...[1, 2, 3, 4].map((n) => first.admit(`a${n}`, [rpm(5)], now)),
      ...[1, 2, 3].map((n) => second.admit(`b${n}`, [rpm(5)], now)),
    ])) as WindowAdmission[];
    // Which worker's batch the primary reads first is not fixed; five admitted in all is.
    assert.equal(admissions.filter((admission) => admission.allowed).length, 5);
    assert.deepEqual(admissions.filter((admission) => admission.allowed).map((admission) => admission.results[0]?.used).sort(), [1, 2, 3, 4, 5]);
    for (const refused of admissions.filter((admission) => !admission.allowed)) assert.equal(refused.results[0]?.used, 5);
    assert.equal(sent[0]!.length, 1, 'one message for the first worker\'s four admissions');
    assert.equal(sent[1]!.length, 1, 'one message for the second worker\'s three');

    // A later turn is a new message.
    const again = await first.admit('a5', [rpm(5)], now + 1);
    assert.equal(again.allowed, false);
    assert.equal(sent[0]!.length, 2);
  });

  it('applies releases and corrections in order before a later admission, without waiting for an answer', async () => {
    const { stores, sent, close } = fleet(1);
    closers.push(close);
    const worker = stores[0]!;
    const inflight = (id: string) => worker.admit(id, [{ subject: 'key:k1:inflight', limit: 1, weight: 1, windowMs: 900_000 }], 5_000);
    assert.equal((await inflight('r1')).allowed, true);
    assert.equal((await inflight('r2')).allowed, false, 'the one slot is taken');
    assert.equal(worker.release('r1', ['key:k1:inflight'], 5_000), undefined, 'a release returns at once');
    assert.equal((await inflight('r3')).allowed, true, 'the release reached the primary before this admission');
    assert.deepEqual(
      sent[0]!.map((message) => (message as { calls: { op: string }[] }).calls.map((call) => call.op)),
      [['admit'], ['admit'], ['release', 'admit']],
      'the release and the next admission went in one message, in that order',
    );

    const tpm = (id: string, weight: number) => worker.admit(id, [{ subject: 'key:k1:tpm', limit: 100, weight, windowMs: 60_000 }], 6_000);
    assert.equal((await tpm('t1', 90)).allowed, true);
    worker.adjust('t1', 'key:k1:tpm', 10, 6_000);
    const corrected = await tpm('t2', 90);
    assert.equal(corrected.allowed, true, 'the estimate of 90 was corrected to the 10 really used');
    assert.equal(corrected.results[0]?.used, 100);
  });

  it('keeps "never" for a request heavier than the limit (JSON writes Infinity as null)', async () => {
    const { stores, close } = fleet(1);
    closers.push(close);
    const refused = await stores[0]!.admit('big', [rpm(10, 11)], 7_000);
    assert.equal(refused.allowed, false);
    assert.equal(refused.results[0]?.retryAfterMs, Number.POSITIVE_INFINITY);
  });

  it('fails the admissions of a batch the primary does not answer in time', async () => {
    const { stores, close } = fleet(1, { silentPrimary: true, timeoutMs: 50 });
    closers.push(close);
    const waits = [stores[0]!.admit('x1', [rpm(5)], 8_000), stores[0]!.admit('x2', [rpm(5)], 8_000)];
    for (const wait of waits) await assert.rejects(Promise.resolve(wait), /did not answer within 50 ms/);
  });

  it('answers an admission the primary could not make with its error, and the batch\'s others still', () => {
    const store = createMemoryWindowStore();
    const reply = answerWindowBatch(store, {
      modelportWindow: 'batch',
      seq: 7,
      calls: [
        { op: 'admit', id: 'ok', checks: [rpm(5)], now: 1 },
        { op: 'admit', id: 'broken', checks: null, now: 1 },
      ],
    });
    assert.equal(reply?.seq, 7);
    assert.equal(reply?.answers.length, 2);
    assert.equal('admission' in reply!.answers[0]! && reply!.answers[0].admission.allowed, true);
    assert.ok('error' in reply!.answers[1]!);
    assert.equal(answerWindowBatch(store, { modelportWindow: 'batch', calls: [{ op: 'release', id: 'ok', subjects: ['key:k1:rpm'] }] }), undefined, 'no answer asked');
    assert.equal(answerWindowBatch(store, { something: 'else' }), undefined);
  });
});
