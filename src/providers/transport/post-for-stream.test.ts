import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { ClientAbort } from '../../lib/client-abort.js';
import type { BodySink } from './body-source.js';
import { UpstreamError } from '../contract.js';
import { createUpstreamDispatcher, defaultTimeouts, type UpstreamHttp } from './http-client.js';
import { postJsonForStream } from './post-for-stream.js';
import { upstreamTarget } from './upstream-call.js';

/** What a sink heard, in order: `data:<text>`, `end`, `fail:<message>`. */
function recordingSink(): BodySink & { heard: string[]; settled: Promise<void> } {
  let settle = () => undefined as void;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const heard: string[] = [];
  return {
    heard,
    settled,
    data: (chunk) => heard.push(`data:${chunk.toString()}`),
    end: () => {
      heard.push('end');
      settle();
    },
    fail: (error) => {
      heard.push(`fail:${error.message}`);
      settle();
    },
  };
}

/** Polls until `probe` holds (a loaded machine can be slow; nothing here is timed). */
async function waitFor(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('postJsonForStream', () => {
  let server: Server;
  let http: UpstreamHttp;
  let origin: string;
  let handle: (request: IncomingMessage, response: ServerResponse) => void = () => undefined;
  const closedRequests: string[] = [];
  before(async () => {
    server = createServer((request, response) => {
      request.resume();
      response.on('close', () => {
        if (!response.writableFinished) closedRequests.push(request.url ?? '');
      });
      handle(request, response);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    http = { dispatcher: createUpstreamDispatcher(defaultTimeouts), timeouts: defaultTimeouts };
  });
  after(async () => {
    await http.dispatcher.close();
    server.closeAllConnections();
    server.close();
  });
  const post = (path: string, signal = new ClientAbort()) => postJsonForStream(http, 'test', upstreamTarget(`${origin}${path}`), { 'content-type': 'application/json' }, { hi: 1 }, signal);

  it('a body read whole before the sink: its chunks, then its end, in order, never from inside attach', async () => {
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('one ');
      response.write('two ');
      response.end('three');
    };
    const answer = await post('/whole');
    assert.equal(answer.statusCode, 200);
    await sleep(50);
    const sink = recordingSink();
    answer.body.attach(sink);
    assert.equal(sink.heard.length, 0, 'nothing from inside attach');
    await sink.settled;
    assert.equal(sink.heard.at(-1), 'end');
    assert.equal(
      sink.heard
        .filter((entry) => entry.startsWith('data:'))
        .map((entry) => entry.slice(5))
        .join(''),
      'one two three',
    );
  });

  it('cancel after a whole body arrived, before the sink took it: the sink hears nothing', async () => {
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end('all of it');
    };
    const answer = await post('/whole-then-dropped');
    await sleep(50);
    const sink = recordingSink();
    answer.body.attach(sink);
    answer.body.cancel();
    await sleep(20);
    assert.deepEqual(sink.heard, []);
  });

  it('a non-2xx answer is thrown with its status and body', async () => {
    handle = (_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"overloaded right now"}}');
    };
    await assert.rejects(post('/busy'), (error: unknown) => {
      assert.ok(error instanceof UpstreamError);
      assert.equal(error.statusCode, 503);
      assert.equal(error.isRetryable, true);
      assert.match(error.message, /overloaded right now/);
      return true;
    });
  });

  it('pause: no chunk reaches the sink until resume, and none is lost', async () => {
    let write: (text: string) => void = () => undefined;
    let finish: () => void = () => undefined;
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      write = (text) => response.write(text);
      finish = () => response.end();
    };
    const answer = await post('/paced');
    const sink = recordingSink();
    answer.body.attach(sink);
    write('a');
    await waitFor('the first chunk', () => sink.heard.length === 1);
    answer.body.pause();
    write('b');
    write('c');
    await sleep(100);
    assert.deepEqual(sink.heard, ['data:a']);
    answer.body.resume();
    finish();
    await sink.settled;
    assert.equal(sink.heard.map((entry) => (entry.startsWith('data:') ? entry.slice(5) : `|${entry}`)).join(''), 'abc|end');
  });

  it("cancel drops the response: the upstream sees its connection close and the sink hears nothing more", async () => {
    let write: (text: string) => void = () => undefined;
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('first');
      write = (text) => response.write(text);
    };
    const answer = await post('/dropped');
    const sink = recordingSink();
    answer.body.attach(sink);
    await waitFor('the first chunk', () => sink.heard.length === 1);
    answer.body.cancel();
    await waitFor('the upstream to see the request dropped', () => closedRequests.includes('/dropped'));
    write('after');
    await sleep(50);
    assert.deepEqual(sink.heard, ['data:first']);
  });

  it("the caller's abort after the headers fails the body", async () => {
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('first');
    };
    const signal = new ClientAbort();
    const answer = await post('/aborted', signal);
    const sink = recordingSink();
    answer.body.attach(sink);
    await waitFor('the first chunk', () => sink.heard.length === 1);
    signal.abort(new DOMException('the client went away', 'AbortError'));
    await sink.settled;
    assert.equal(sink.heard[0], 'data:first');
    assert.match(sink.heard[1] ?? '', /^fail:/);
    await waitFor('the upstream to see the request dropped', () => closedRequests.includes('/aborted'));
  });
});
