import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Agent, request } from 'undici';
import { UpstreamError, type StreamPart } from '../providers/contract.js';
import { PartChannel } from '../providers/part-stream.js';
import { openEventStream, relayParts, type EventStream } from './event-stream.js';

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
    end: (events) => written.push(...events),
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
  it('writes the first part at once, then the parts of each upstream read in one write, pausing the upstream while the client is full', async () => {
    const client = fakeClient(2);
    const { channel, calls } = upstream();
    channel.push({ type: 'text-delta', text: 'Hel' });
    channel.push({ type: 'text-delta', text: 'lo' });
    const relayed = relayParts(channel, encode, client.stream, 'The stream');
    assert.deepEqual(client.written, ['data: Hel\n\n', 'data: lo\n\n'], 'the queued parts: the first alone, the rest after it');
    assert.deepEqual(client.flushes, [1], 'the first part is sent without waiting for the end of the tick');
    assert.deepEqual(calls, ['pause'], 'the second write filled the buffer');
    client.drain();
    assert.deepEqual(calls, ['pause', 'resume']);
    channel.push({ type: 'text-delta', text: ' there' });
    channel.push({ type: 'finish', finishReason: 'stop' });
    assert.equal(client.written.length, 2, 'a read is written when it was all mapped');
    channel.endBatch();
    assert.deepEqual(client.written.slice(2), ['data:  there\n\ndata: finish\n\n'], 'one write for one upstream read');
    assert.deepEqual(calls, ['pause', 'resume']);
    channel.push({ type: 'usage', usage: { promptTokens: 3, completionTokens: 2, estimated: false } });
    channel.endBatch();
    assert.deepEqual(calls, ['pause', 'resume', 'pause'], 'full again');
    channel.push({ type: 'text-delta', text: '!' });
    channel.end();
    assert.equal(client.written.length, 4, 'nothing written while the client is full');
    client.drain();
    const result = await relayed;
    assert.deepEqual(client.written.slice(4), ['data: !\n\n'], 'what waited is written before the end');
    // The provider counted: the text is not kept for the tokenizer.
    assert.deepEqual(result, { generated: '', finishReason: 'stop', usage: { promptTokens: 3, completionTokens: 2, estimated: false }, failure: undefined });
    assert.deepEqual(client.flushes, [1], 'only the first part is sent ahead');
  });

  it('keeps the text after the usage when asked to (an agent stores its output)', async () => {
    const { channel } = upstream();
    const relayed = relayParts(channel, encode, fakeClient(1_000).stream, 'The stream', true);
    channel.push({ type: 'text-delta', text: 'Hel' });
    channel.push({ type: 'usage', usage: { promptTokens: 3, completionTokens: 2, estimated: false } });
    channel.push({ type: 'text-delta', text: 'lo' });
    channel.end();
    assert.equal((await relayed).generated, 'Hello');
  });

  it('keeps the whole generated text, every piece in order, when the provider sends no usage', async () => {
    const { channel } = upstream();
    const relayed = relayParts(channel, encode, fakeClient(1_000).stream, 'The stream');
    const pieces = Array.from({ length: 50 }, (_, index) => `${index}é `);
    for (const text of pieces) {
      channel.push({ type: 'text-delta', text });
      channel.endBatch();
    }
    channel.push({ type: 'tool-call-delta', index: 0, id: 'call_1', name: 'lookup', argumentsDelta: '{"q":1}' });
    channel.end();
    const result = await relayed;
    assert.equal(result.generated, `${pieces.join('')}lookup{"q":1}`);
    assert.equal(result.usage, undefined);
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

describe('openEventStream', () => {
  it('frames the events it writes to the socket as HTTP/1.1 chunks, and the connection serves the next request', async () => {
    const connections = new Set<unknown>();
    const server = createServer((incoming, response: ServerResponse) => {
      connections.add(incoming.socket);
      const reply = { raw: response, hijack: () => undefined, getHeaders: () => ({ 'x-from-fastify': 'kept' }) } as unknown as FastifyReply;
      const events = openEventStream({ id: 'req_1' } as FastifyRequest, reply, 'openai:gpt-4o-mini');
      events.send(['data: start\n\n']);
      events.send(['data: é and €\n\n']);
      events.flush();
      events.send(['data: two\n\n', 'data: events\n\n']);
      events.end(['data: [DONE]\n\n']);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent({ connections: 1 });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      for (let round = 0; round < 2; round += 1) {
        const answer = await request(url, { dispatcher: agent });
        assert.equal(answer.statusCode, 200);
        assert.equal(answer.headers['content-type'], 'text/event-stream; charset=utf-8');
        assert.equal(answer.headers['x-from-fastify'], 'kept');
        assert.equal(answer.headers['transfer-encoding'], 'chunked');
        assert.equal(await answer.body.text(), 'data: start\n\ndata: é and €\n\ndata: two\n\ndata: events\n\ndata: [DONE]\n\n');
      }
      assert.equal(connections.size, 1, 'one keep-alive connection served both streams');
    } finally {
      await agent.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
