import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientAbort, abortableDelay } from './client-abort.js';

test('abort calls each listener once, in order, with the reason set before; later aborts and listeners do nothing', () => {
  const abort = new ClientAbort();
  const calls: string[] = [];
  const removed = () => calls.push('removed');
  abort.addEventListener('abort', () => calls.push(`first ${String((abort.reason as DOMException).name)}`));
  abort.addEventListener('abort', removed);
  abort.addEventListener('abort', () => calls.push(`second ${abort.aborted}`));
  abort.removeEventListener('abort', removed);
  assert.equal(abort.aborted, false);
  abort.abort();
  abort.abort(new Error('again'));
  abort.addEventListener('abort', () => calls.push('late'));
  assert.deepEqual(calls, ['first AbortError', 'second true']);
  assert.equal((abort.reason as DOMException).name, 'AbortError');
});

test('a listener removed before the abort is not called, whichever was added first', () => {
  const abort = new ClientAbort();
  const calls: string[] = [];
  const first = () => calls.push('first');
  abort.addEventListener('abort', first);
  abort.addEventListener('abort', () => calls.push('second'));
  abort.removeEventListener('abort', first);
  abort.addEventListener('abort', () => calls.push('third'));
  abort.abort();
  assert.deepEqual(calls, ['second', 'third']);
});

test('an object listener has its handleEvent called, and is removed as itself', () => {
  const abort = new ClientAbort();
  const calls: string[] = [];
  const kept = { handleEvent: () => calls.push('kept') };
  const removed = { handleEvent: () => calls.push('removed') };
  abort.addEventListener('abort', removed);
  abort.addEventListener('abort', kept);
  abort.removeEventListener('abort', removed);
  abort.abort();
  assert.deepEqual(calls, ['kept']);
});

test('abortableDelay resolves after its time, rejects with the reason on abort, and leaves no listener behind', async () => {
  const quiet = new ClientAbort();
  await abortableDelay(5, quiet);
  let heard = 0;
  quiet.addEventListener('abort', () => (heard += 1));
  quiet.abort();
  assert.equal(heard, 1, 'the finished delay removed its own listener, so only the new one is called');

  const leaving = new ClientAbort();
  const waiting = abortableDelay(60_000, leaving);
  leaving.abort(new Error('gone'));
  await assert.rejects(waiting, /gone/);
  await assert.rejects(abortableDelay(1, leaving), /gone/, 'an aborted signal rejects at once');
});
