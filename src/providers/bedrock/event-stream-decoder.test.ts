import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeEvent, encodeException } from '../../../test/support/fake-bedrock.js';
import { EventStreamFramingError, readEventStreamMessages, type EventStreamMessage } from './event-stream-decoder.js';

async function* chunksOf(bytes: Uint8Array, sizes: readonly number[]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let index = 0;
  while (offset < bytes.length) {
    const size = sizes[index % sizes.length] ?? 1;
    index += 1;
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
}

async function decodeAll(chunks: AsyncIterable<Uint8Array>): Promise<{ headers: Readonly<Record<string, string>>; body: string }[]> {
  const out: { headers: Readonly<Record<string, string>>; body: string }[] = [];
  const decoder = new TextDecoder();
  for await (const message of readEventStreamMessages(chunks) as AsyncIterable<EventStreamMessage>) out.push({ headers: message.headers, body: decoder.decode(message.body) });
  return out;
}

const stream = Buffer.concat([
  encodeEvent('messageStart', { p: 'abc', role: 'assistant' }),
  encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Zürich — 東京 🎉' }, p: 'abcdefgh' }),
  encodeEvent('contentBlockStop', { contentBlockIndex: 0, p: 'a' }),
  encodeException('throttlingException', { message: 'Too many requests, please wait before trying again.' }),
]);

describe('readEventStreamMessages: application/vnd.amazon.eventstream framing', () => {
  it('decodes headers and payloads of whole messages', async () => {
    const messages = await decodeAll(chunksOf(stream, [stream.length]));
    assert.deepEqual(
      messages.map((message) => message.headers),
      [
        { ':event-type': 'messageStart', ':content-type': 'application/json', ':message-type': 'event' },
        { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' },
        { ':event-type': 'contentBlockStop', ':content-type': 'application/json', ':message-type': 'event' },
        { ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' },
      ],
    );
    assert.equal(JSON.parse(messages[1]?.body ?? '').delta.text, 'Zürich — 東京 🎉');
  });

  it('gives the same messages whatever the chunk boundaries: every single cut, one-byte chunks, uneven chunks', async () => {
    const whole = await decodeAll(chunksOf(stream, [stream.length]));
    for (let cut = 1; cut < stream.length; cut += 1) {
      assert.deepEqual(await decodeAll(chunksOf(stream, [cut, stream.length])), whole, `cut at byte ${cut}`);
    }
    assert.deepEqual(await decodeAll(chunksOf(stream, [1])), whole);
    assert.deepEqual(await decodeAll(chunksOf(stream, [3, 1, 7, 2, 64, 5])), whole);
  });

  it('refuses a corrupt message (CRC mismatch), a body cut inside a message, and an impossible length', async () => {
    const corrupt = Buffer.from(stream);
    corrupt[40] = (corrupt[40] ?? 0) ^ 0xff;
    await assert.rejects(decodeAll(chunksOf(corrupt, [corrupt.length])), (error: unknown) => error instanceof EventStreamFramingError && /corrupt/.test(error.message));
    await assert.rejects(decodeAll(chunksOf(stream.subarray(0, stream.length - 3), [10])), (error: unknown) => error instanceof EventStreamFramingError && /ended inside a message/.test(error.message));
    await assert.rejects(decodeAll(chunksOf(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0]), [8])), (error: unknown) => error instanceof EventStreamFramingError && /out of bounds/.test(error.message));
  });

  it('yields each message as soon as its last byte is in, before the body ends', async () => {
    const first = encodeEvent('messageStart', { role: 'assistant' });
    let released = false;
    async function* slow(): AsyncGenerator<Uint8Array> {
      yield first;
      await new Promise((resolve) => setTimeout(resolve, 20));
      released = true;
      yield encodeEvent('messageStop', { stopReason: 'end_turn' });
    }
    const iterator = readEventStreamMessages(slow())[Symbol.asyncIterator]();
    const next = await iterator.next();
    assert.equal(next.value?.headers[':event-type'], 'messageStart');
    assert.equal(released, false);
    await iterator.return?.(undefined);
  });
});
