import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { ClientAbort } from '../../lib/client-abort.js';
import { UpstreamError, type StreamPart } from '../contract.js';
import { streamServerSentParts, type ServerSentPartMapping } from './sse-part-stream.js';
import { readableBodySource } from './body-source.js';

/** A mapping of `data: <text>` events to text parts (`-` maps to no part), counting what it was asked to map. */
function countingMapping(): ServerSentPartMapping & { mapped: string[]; endCalls: number } {
  const mapping = {
    mapped: [] as string[],
    endCalls: 0,
    event(event: { data: string }, push: (part: StreamPart) => void) {
      mapping.mapped.push(event.data);
      if (event.data !== '-') push({ type: 'text-delta', text: event.data });
      return false;
    },
    end() {
      mapping.endCalls += 1;
    },
  };
  return mapping;
}

function collect(stream: ReturnType<typeof streamServerSentParts>): Promise<{ texts: string[]; error?: unknown }> {
  const texts: string[] = [];
  return new Promise((resolve) => {
    stream.pipe({
      part: (part) => texts.push(part.type === 'text-delta' ? part.text : part.type),
      end: () => resolve({ texts }),
      fail: (error) => resolve({ texts, error }),
    });
  });
}

describe('streamServerSentParts', () => {
  it('a body that arrived and ended whole before the consumer: only up to the first part is mapped until it takes them', async () => {
    const body = new PassThrough();
    const mapping = countingMapping();
    const stream = streamServerSentParts('test', readableBodySource(body), new ClientAbort(), mapping);
    for (const data of ['-', 'one', 'two', 'three', 'four']) body.write(`data: ${data}\n\n`);
    body.end();
    await stream.started();
    // Let the body's end be seen (it comes on a later tick than its data).
    await turn();
    await turn();
    assert.deepEqual(mapping.mapped, ['-', 'one'], 'the rest waits unmapped: mapping it would hold back the first write');
    assert.equal(mapping.endCalls, 0);
    const { texts, error } = await collect(stream);
    assert.equal(error, undefined);
    assert.deepEqual(texts, ['one', 'two', 'three', 'four']);
    assert.deepEqual(mapping.mapped, ['-', 'one', 'two', 'three', 'four']);
    assert.equal(mapping.endCalls, 1, 'the end is mapped once, after every event');
  });

  it('a body that broke after its events: the events are delivered, then the failure', async () => {
    const body = new PassThrough();
    const mapping = countingMapping();
    const stream = streamServerSentParts('test', readableBodySource(body), new ClientAbort(), mapping);
    body.write('data: one\n\ndata: two\n\n');
    await stream.started();
    body.destroy(new Error('connection reset'));
    await turn();
    const { texts, error } = await collect(stream);
    assert.deepEqual(texts, ['one', 'two']);
    assert.ok(error instanceof UpstreamError, `an UpstreamError, not ${String(error)}`);
    assert.equal(error.provider, 'test');
    assert.equal(mapping.endCalls, 0, 'a broken body is not an end');
  });

  it('a body that ended with no part at all: started() resolves and the consumer hears the end', async () => {
    const body = new PassThrough();
    const mapping = countingMapping();
    const stream = streamServerSentParts('test', readableBodySource(body), new ClientAbort(), mapping);
    body.end('data: -\n\ndata: -\n\n');
    await stream.started();
    assert.deepEqual(mapping.mapped, ['-', '-']);
    const { texts, error } = await collect(stream);
    assert.deepEqual(texts, []);
    assert.equal(error, undefined);
    assert.equal(mapping.endCalls, 1);
  });

  it('a paused consumer gets the rest of an ended body when it resumes', async () => {
    const body = new PassThrough();
    const mapping = countingMapping();
    const stream = streamServerSentParts('test', readableBodySource(body), new ClientAbort(), mapping);
    body.end('data: one\n\ndata: two\n\ndata: three\n\n');
    await stream.started();
    const texts: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      stream.pipe({
        part: (part) => {
          texts.push(part.type === 'text-delta' ? part.text : part.type);
          if (texts.length === 1) stream.pause();
        },
        end: resolve,
        fail: reject,
      });
    });
    await turn();
    assert.deepEqual(texts, ['one']);
    assert.equal(mapping.endCalls, 0);
    stream.resume();
    await ended;
    assert.deepEqual(texts, ['one', 'two', 'three']);
    assert.equal(mapping.endCalls, 1);
  });
});
