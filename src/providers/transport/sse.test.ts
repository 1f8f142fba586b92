import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { pushServerSentEvents } from './sse.js';
import { readableBodySource } from './body-source.js';

/** Every event's data, then how the body ended. */
function collect(body: Readable): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const data: string[] = [];
    pushServerSentEvents(readableBodySource(body), { event: (event) => data.push(event.data), end: () => resolve(data), fail: reject });
  });
}

const text = 'data: {"a":"héllo €"}\n\ndata: second\n\ndata: last without a blank line';
const expected = ['{"a":"héllo €"}', 'second', 'last without a blank line'];

describe('pushServerSentEvents', () => {
  it('pushes every event whatever the byte boundaries, multi-byte characters split included', async () => {
    const bytes = Buffer.from(text, 'utf8');
    // One byte at a time: every event and every multi-byte character is cut somewhere.
    assert.deepEqual(await collect(Readable.from(Array.from(bytes, (byte) => Buffer.from([byte])), { objectMode: false })), expected);
    // And cut once at every position, line ends (\n\n split in two) included.
    for (let cut = 1; cut < bytes.length; cut += 1) {
      assert.deepEqual(await collect(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)], { objectMode: false })), expected, `cut at ${cut}`);
    }
  });

  it('pushes events as chunks arrive later', async () => {
    const body = new PassThrough();
    const seen: string[] = [];
    const ended = new Promise<void>((resolve, reject) => pushServerSentEvents(readableBodySource(body), { event: (event) => seen.push(event.data), end: resolve, fail: reject }));
    body.write('data: one\n\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen, ['one'], 'an event is pushed as soon as its blank line arrived');
    body.write('data: tw');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen, ['one']);
    body.end('o\n\n');
    await ended;
    assert.deepEqual(seen, ['one', 'two']);
  });

  it('fails when the body breaks or closes before its end', async () => {
    const broken = new PassThrough();
    const brokenEvents = collect(broken);
    broken.write('data: one\n\n');
    setTimeout(() => broken.destroy(new Error('socket hang up')), 10);
    await assert.rejects(brokenEvents, /socket hang up/);

    const closed = new PassThrough();
    const closedEvents = collect(closed);
    setTimeout(() => closed.destroy(), 10);
    await assert.rejects(closedEvents, { code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('pause stops reading the body until resume', async () => {
    const body = new PassThrough();
    const seen: string[] = [];
    const feed = pushServerSentEvents(readableBodySource(body), { event: (event) => seen.push(event.data), end: () => undefined, fail: () => undefined });
    feed.pause();
    body.write('data: held\n\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen, []);
    assert.equal(body.isPaused(), true);
    feed.resume();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen, ['held']);
  });

  it('stop leaves the body open, so it can be read to its end', async () => {
    const body = new PassThrough();
    const seen: string[] = [];
    let ended = false;
    const feed = pushServerSentEvents(readableBodySource(body), {
      event(event) {
        seen.push(event.data);
        if (event.data === '[DONE]') feed.stop();
      },
      end: () => (ended = true),
      fail: () => (ended = true),
    });
    body.write('data: first\n\ndata: [DONE]\n\ndata: after\n\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen, ['first', '[DONE]'], 'nothing is pushed after stop');
    assert.equal(body.destroyed, false);
    const rest: string[] = [];
    body.on('data', (chunk: Buffer) => rest.push(chunk.toString())).resume();
    body.end('trailer');
    await new Promise((resolve) => body.once('end', resolve));
    assert.deepEqual(rest, ['trailer']);
    assert.equal(ended, false);
  });
});
