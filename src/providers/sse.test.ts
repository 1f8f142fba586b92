import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { readServerSentEventsFromStream } from './sse.js';

async function collect(body: Readable): Promise<string[]> {
  const data: string[] = [];
  for await (const event of readServerSentEventsFromStream(body)) data.push(event.data);
  return data;
}

describe('readServerSentEventsFromStream', () => {
  it('yields every event whatever the byte boundaries, multi-byte characters split included', async () => {
    const text = 'data: {"a":"héllo €"}\n\ndata: second\n\ndata: last without a blank line';
    const bytes = Buffer.from(text, 'utf8');
    // One byte at a time: every event and every multi-byte character is cut somewhere.
    const body = Readable.from(Array.from(bytes, (byte) => Buffer.from([byte])), { objectMode: false });
    assert.deepEqual(await collect(body), ['{"a":"héllo €"}', 'second', 'last without a blank line']);
  });

  it('waits for chunks that arrive later', async () => {
    const body = new PassThrough();
    const events = collect(body);
    body.write('data: one\n\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    body.write('data: tw');
    await new Promise((resolve) => setTimeout(resolve, 20));
    body.end('o\n\n');
    assert.deepEqual(await events, ['one', 'two']);
  });

  it('throws when the body breaks or closes before its end', async () => {
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

  it('leaves the body open when the reader stops early, so it can be read to its end', async () => {
    const body = new PassThrough();
    body.write('data: first\n\ndata: [DONE]\n\n');
    for await (const event of readServerSentEventsFromStream(body)) {
      if (event.data === '[DONE]') break;
    }
    assert.equal(body.destroyed, false);
    const rest: string[] = [];
    body.on('data', (chunk: Buffer) => rest.push(chunk.toString())).resume();
    body.end('trailer');
    await new Promise((resolve) => body.once('end', resolve));
    assert.deepEqual(rest, ['trailer']);
  });
});
