import type { EventStreamCodec } from '@smithy/eventstream-codec';

/**
 * Reads `application/vnd.amazon.eventstream`, the binary framing of
 * ConverseStream (https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html#streaming-event-stream):
 * each message is a 12-byte prelude (total length, headers length, prelude CRC32),
 * headers, a payload and a message CRC32, all lengths big-endian.
 *
 * The body arrives cut anywhere, so whole messages are put back together here;
 * EventStreamCodec then checks both CRCs and parses the headers. Smithy's
 * MessageDecoderStream is no help for the first part: it decodes every chunk it
 * is given as one whole message.
 */

/** One decoded message: its string headers (`:event-type`, `:message-type`…) and its payload. */
export interface EventStreamMessage {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** The framing cannot be read: a length out of bounds, a CRC mismatch, a body cut mid-message. */
export class EventStreamFramingError extends Error {
  override readonly name = 'EventStreamFramingError';
}

const PRELUDE_AND_CRCS = 16;
/** Event stream messages are at most 16 MiB (headers 128 KiB); more means the framing is lost. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024 + PRELUDE_AND_CRCS;

/** Bytes received but not yet decoded, kept as the chunks they came in, never re-copied per chunk. */
class PendingBytes {
  private chunks: Uint8Array[] = [];
  private offset = 0;
  length = 0;

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The big-endian uint32 at the start, or undefined while fewer than 4 bytes are in. */
  peekUint32(): number | undefined {
    if (this.length < 4) return undefined;
    const head = this.copy(4, false);
    return new DataView(head.buffer, head.byteOffset, 4).getUint32(0, false);
  }

  /** Removes and returns the first `count` bytes as one contiguous array. */
  take(count: number): Uint8Array {
    return this.copy(count, true);
  }

  private copy(count: number, consume: boolean): Uint8Array {
    const out = new Uint8Array(count);
    let written = 0;
    let index = 0;
    let offset = this.offset;
    while (written < count) {
      const chunk = this.chunks[index] as Uint8Array;
      const piece = chunk.subarray(offset, Math.min(chunk.length, offset + count - written));
      out.set(piece, written);
      written += piece.length;
      offset += piece.length;
      if (offset === chunk.length) {
        index += 1;
        offset = 0;
      }
    }
    if (consume) {
      this.chunks = this.chunks.slice(index);
      this.offset = offset;
      this.length -= count;
    }
    return out;
  }
}

/** Yields each message of an event stream body as soon as its last byte is in. */
export async function* readEventStreamMessages(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<EventStreamMessage> {
  // Loaded with the first Bedrock stream, not at start-up: most gateways never call Bedrock (docs/performance.md, idle memory).
  const [{ EventStreamCodec }, { fromUtf8, toUtf8 }] = await Promise.all([import('@smithy/eventstream-codec'), import('@smithy/util-utf8')]);
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const pending = new PendingBytes();
  for await (const chunk of body) {
    pending.push(typeof chunk === 'string' ? fromUtf8(chunk) : chunk);
    for (;;) {
      const total = pending.peekUint32();
      if (total === undefined) break;
      if (total < PRELUDE_AND_CRCS || total > MAX_MESSAGE_BYTES) throw new EventStreamFramingError(`event stream message length ${total} is out of bounds`);
      if (pending.length < total) break;
      yield decode(codec, pending.take(total));
    }
  }
  if (pending.length > 0) throw new EventStreamFramingError(`event stream ended inside a message (${pending.length} bytes left over)`);
}

function decode(codec: EventStreamCodec, bytes: Uint8Array): EventStreamMessage {
  let message: ReturnType<EventStreamCodec['decode']>;
  try {
    message = codec.decode(bytes);
  } catch (error) {
    throw new EventStreamFramingError(`event stream message is corrupt: ${(error as Error).message}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(message.headers)) {
    if (header.type === 'string') headers[name] = header.value;
  }
  return { headers, body: message.body };
}
