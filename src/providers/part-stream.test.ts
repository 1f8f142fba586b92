import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamPart } from './contract.js';
import { PartChannel, toPartStream, type PartSink } from './part-stream.js';

const text = (value: string): StreamPart => ({ type: 'text-delta', text: value });

/** A channel whose upstream records what it was told. */
function channelWithFlow() {
  const calls: string[] = [];
  const channel = new PartChannel({ pause: () => calls.push('pause'), resume: () => calls.push('resume'), cancel: () => calls.push('cancel') });
  return { channel, calls };
}

/** A sink that records everything; `onPart` runs inside the part callback. */
function recordingSink(onPart?: (part: StreamPart) => void): PartSink & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    part(part) {
      seen.push(part.type === 'text-delta' ? part.text : part.type);
      onPart?.(part);
    },
    end: () => seen.push('end'),
    fail: (error) => seen.push(`fail: ${(error as Error).message}`),
  };
}

describe('PartChannel', () => {
  it('queues parts until a sink is piped, then pushes each part as it arrives', () => {
    const { channel } = channelWithFlow();
    channel.push(text('a'));
    channel.push(text('b'));
    const sink = recordingSink();
    channel.pipe(sink);
    assert.deepEqual(sink.seen, ['a', 'b']);
    channel.push(text('c'));
    assert.deepEqual(sink.seen, ['a', 'b', 'c'], 'delivered synchronously, no promise in between');
    channel.end();
    channel.push(text('after the end'));
    assert.deepEqual(sink.seen, ['a', 'b', 'c', 'end']);
  });

  it('started() resolves at the first part or the end, and rejects only on a failure before any part', async () => {
    const first = channelWithFlow().channel;
    const started = first.started();
    first.push(text('a'));
    await started;

    const empty = channelWithFlow().channel;
    const emptyStarted = empty.started();
    empty.end();
    await emptyStarted;

    const failed = channelWithFlow().channel;
    const failedStarted = failed.started();
    failed.fail(new Error('refused'));
    await assert.rejects(failedStarted, /refused/);

    const late = channelWithFlow().channel;
    late.push(text('a'));
    late.fail(new Error('broke later'));
    await late.started();
    const sink = recordingSink();
    late.pipe(sink);
    assert.deepEqual(sink.seen, ['a', 'fail: broke later'], 'the parts before the failure come first');
  });

  it('pause holds parts back and pauses the upstream; resume delivers them in order', () => {
    const { channel, calls } = channelWithFlow();
    const sink = recordingSink((part) => {
      if (part.type === 'text-delta' && part.text === 'a') channel.pause();
    });
    channel.pipe(sink);
    channel.push(text('a'));
    channel.push(text('b'));
    channel.end();
    assert.deepEqual(sink.seen, ['a'], 'nothing after the pause');
    assert.deepEqual(calls, ['resume', 'pause'], 'piped: the upstream may go on; then paused');
    channel.resume();
    assert.deepEqual(sink.seen, ['a', 'b', 'end']);
    assert.deepEqual(calls, ['resume', 'pause'], 'an upstream that ended is not resumed');
  });

  it('cancel drops queued parts and the upstream, and the sink hears nothing more', () => {
    const { channel, calls } = channelWithFlow();
    const sink = recordingSink(() => channel.cancel());
    channel.push(text('a'));
    channel.push(text('b'));
    channel.pipe(sink);
    channel.end();
    assert.deepEqual(sink.seen, ['a']);
    assert.deepEqual(calls, ['cancel']);
    channel.cancel();
    assert.deepEqual(calls, ['cancel'], 'once');
  });

  it('can be read with for await, pausing the upstream while parts wait to be asked for', async () => {
    const { channel, calls } = channelWithFlow();
    channel.push(text('a'));
    channel.push(text('b'));
    const read: string[] = [];
    const iterator = channel[Symbol.asyncIterator]();
    assert.deepEqual(calls, ['pause'], 'two parts and nobody asking: the upstream waits');
    read.push(((await iterator.next()).value as { text: string }).text);
    read.push(((await iterator.next()).value as { text: string }).text);
    const third = iterator.next();
    assert.deepEqual(calls, ['pause', 'resume']);
    channel.push(text('c'));
    channel.fail(new Error('broke'));
    read.push(((await third).value as { text: string }).text);
    await assert.rejects(iterator.next(), /broke/);
    assert.deepEqual(read, ['a', 'b', 'c']);
    assert.deepEqual(await iterator.next(), { done: true, value: undefined });
  });

  it('an iterator stopped early cancels the upstream', async () => {
    const { channel, calls } = channelWithFlow();
    channel.push(text('a'));
    for await (const part of channel) {
      assert.deepEqual(part, text('a'));
      break;
    }
    assert.ok(calls.includes('cancel'));
  });
});

describe('toPartStream', () => {
  it('passes a PartChannel through as it is', () => {
    const { channel } = channelWithFlow();
    assert.equal(toPartStream(channel), channel);
  });

  it("pushes an async generator's parts and its failure, and stops pulling while paused", async () => {
    let pulled = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* parts(): AsyncGenerator<StreamPart> {
      pulled += 1;
      yield text('a');
      pulled += 1;
      yield text('b');
      await gate;
      pulled += 1;
      yield text('c');
      throw new Error('broke');
    }
    const stream = toPartStream(parts());
    await stream.started();
    let sink: ReturnType<typeof recordingSink>;
    const failed = new Promise<void>((resolve) => {
      sink = recordingSink((part) => {
        if (part.type === 'text-delta' && part.text === 'a') stream.pause();
      });
      const fail = sink.fail;
      sink.fail = (error) => {
        fail(error);
        resolve();
      };
      stream.pipe(sink);
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(sink!.seen, ['a']);
    const pulledWhilePaused = pulled;
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(pulled, pulledWhilePaused, 'no part is pulled while paused');
    stream.resume();
    await failed;
    assert.deepEqual(sink!.seen, ['a', 'b', 'c', 'fail: broke']);
  });
});
