import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamError, type StreamPart } from '../providers/contract.js';
import { PartChannel } from '../providers/part-stream.js';
import { relayParts, type EventStream } from './event-stream.js';

/** A client whose buffer is full after `capacity` writes, until `drain()`. */
function fakeClient(capacity: number) {
  const written: string[] = [];
  /** How many events had been written at each flush. */
  const flushes: number[] = [];
  let room = capacity;
  let waiting: (() => void) | undefined;
  const stream: EventStream = {
    send(events) {
      written.push(...events);
      room -= 1;
      return room > 0;
    },
    whenWritable(callback) {
      waiting = callback;
    },
    write: () => Promise.resolve(),
    flush: () => flushes.push(written.length),
    end: () => undefined,
  };
  return {
    stream,
    written,
    flushes,
    drain() {
      room = capacity;
      const callback = waiting;
      waiting = undefined;
      callback?.();
    },
  };
}

function upstream() {
  const calls: string[] = [];
  const channel = new PartChannel({ pause: () => calls.push('pause'), resume: () => calls.push('resume'), cancel: () => calls.push('cancel') });
  return { channel, calls };
}

const encode = (part: StreamPart): readonly string[] => [part.type === 'text-delta' ? `data: ${part.text}\n\n` : `data: ${part.type}\n\n`];

describe('relayParts', () => {
  it('writes each part as it arrives and pauses the upstream while the client cannot take more', async () => {
    const client = fakeClient(2);
    const { channel, calls } = upstream();
    channel.push({ type: 'text-delta', text: 'Hel' });
    const relayed = relayParts(channel, encode, client.stream, 'The stream');
    assert.deepEqual(client.written, ['data: Hel\n\n'], 'the queued first part is written at once');
    assert.deepEqual(client.flushes, [1], 'and sent without waiting for the end of the tick');
    channel.push({ type: 'text-delta', text: 'lo' });
    assert.deepEqual(calls, ['resume', 'pause'], 'piped (the upstream is told it may go on), then the second write filled the buffer');
    channel.push({ type: 'text-delta', text: ' there' });
    channel.push({ type: 'finish', finishReason: 'stop' });
    channel.push({ type: 'usage', usage: { promptTokens: 3, completionTokens: 2, estimated: false } });
    assert.equal(client.written.length, 2, 'nothing written while the client is full');
    client.drain();
    assert.deepEqual(calls, ['resume', 'pause', 'resume', 'pause'], 'two more writes filled it again');
    assert.deepEqual(client.written, ['data: Hel\n\n', 'data: lo\n\n', 'data:  there\n\n', 'data: finish\n\n']);
    client.drain();
    assert.deepEqual(calls, ['resume', 'pause', 'resume', 'pause', 'resume']);
    channel.end();
    const result = await relayed;
    assert.deepEqual(client.written.slice(4), ['data: usage\n\n']);
    assert.deepEqual(client.flushes, [1], 'only the first part is sent ahead');
    assert.deepEqual(result, { generated: 'Hello there', finishReason: 'stop', usage: { promptTokens: 3, completionTokens: 2, estimated: false }, failure: undefined });
  });

  it('returns a break after the start as a failure: 499 when the client went away, 502 otherwise', async () => {
    const aborted = upstream().channel;
    aborted.push({ type: 'text-delta', text: 'a' });
    const abortedRelay = relayParts(aborted, encode, fakeClient(100).stream, 'The stream');
    aborted.fail(new UpstreamError({ provider: 'openai', kind: 'aborted', isRetryable: false, message: 'gone' }));
    assert.equal((await abortedRelay).failure?.status, 499);

    const broken = upstream().channel;
    const brokenRelay = relayParts(broken, encode, fakeClient(100).stream, 'The stream');
    broken.push({ type: 'text-delta', text: 'a' });
    broken.fail(new Error('socket hang up'));
    const result = await brokenRelay;
    assert.equal(result.failure?.status, 502);
    assert.match(result.failure?.message ?? '', /The stream broke after it had started: socket hang up/);
    assert.equal(result.generated, 'a');
  });
});
