/**
 * Preload for a gateway under sequential requests (`--import=<abs path>`, through bench/sequential-cost.ts's
 * SEQUENTIAL_GATEWAY_ENV with SEQUENTIAL_SIGNAL=1): where one request's time goes inside the gateway, from Node's and
 * undici's diagnostics channels and the server socket's first write. Between the two SIGUSR2 it times each request:
 *
 *   before upstream   the request's head parsed → undici's request created (body read, key, limits, routing, mapping)
 *   to the socket     undici's request created → its headers written to the upstream socket
 *   upstream          headers written → the upstream's response headers parsed
 *   to first write    the upstream's headers → the first write on the client's socket (the answer's head and, for
 *                     a stream, its first part)
 *
 * with "to first write" split at the upstream body's first 'data' event and the client's response head (writeHead),
 * and writes the medians to /tmp/phase-timer-<pid>.json. One request at a time only: a request's phases are told
 * apart by order, not by request.
 */
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Readable } from 'node:stream';

let recording = false;
let current;
const done = [];

diagnostics.subscribe('http.server.request.start', ({ socket }) => {
  if (!recording) return;
  current = { socket, start: performance.now() };
});
diagnostics.subscribe('undici:request:create', () => {
  if (current !== undefined && current.created === undefined) current.created = performance.now();
});
diagnostics.subscribe('undici:client:sendHeaders', () => {
  if (current !== undefined && current.sent === undefined) current.sent = performance.now();
});
diagnostics.subscribe('undici:request:headers', () => {
  if (current !== undefined && current.headers === undefined) current.headers = performance.now();
});

// Marks inside "to first write": the upstream body's first 'data' event, the end of the last one before the client's
// response head (undici delivers a buffered body one chunked-encoding chunk per event), and that head.
const emit = Readable.prototype.emit;
Readable.prototype.emit = function timedEmit(name, ...args) {
  if (name !== 'data' || current === undefined || current.headers === undefined || current.head !== undefined) return emit.call(this, name, ...args);
  const one = current;
  one.data ??= performance.now();
  const result = emit.call(this, name, ...args);
  one.dataDone = performance.now();
  return result;
};
// The first part pushed by the provider's stream mapping (the gateway's own module, when the preload is given its path).
if (process.env.PHASE_TIMER_DIST !== undefined) {
  const { PartChannel } = await import(`${process.env.PHASE_TIMER_DIST}/providers/part-stream.js`);
  const push = PartChannel.prototype.push;
  PartChannel.prototype.push = function timedPush(part) {
    if (current !== undefined && current.headers !== undefined && current.part === undefined) current.part = performance.now();
    return push.call(this, part);
  };
}
const writeHead = ServerResponse.prototype.writeHead;
ServerResponse.prototype.writeHead = function timedWriteHead(...args) {
  if (current !== undefined && current.headers !== undefined && current.head === undefined) current.head = performance.now();
  return writeHead.apply(this, args);
};

const writeGeneric = Socket.prototype._writeGeneric;
Socket.prototype._writeGeneric = function timedWrite(...args) {
  if (current !== undefined && this === current.socket && current.headers !== undefined) {
    current.firstWrite = performance.now();
    done.push(current);
    current = undefined;
  }
  return writeGeneric.apply(this, args);
};

const median = (values) => {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : Math.round(sorted[Math.floor(sorted.length / 2)] * 1000);
};

process.on('SIGUSR2', () => {
  if (!recording) {
    recording = true;
    return;
  }
  recording = false;
  const summary = {
    requests: done.length,
    medianUs: {
      beforeUpstream: median(done.map((one) => one.created - one.start)),
      toTheSocket: median(done.map((one) => one.sent - one.created)),
      upstream: median(done.map((one) => one.headers - one.sent)),
      toFirstWrite: median(done.map((one) => one.firstWrite - one.headers)),
      headersToBodyData: median(done.map((one) => one.data - one.headers)),
      bodyDataToFirstPart: median(done.map((one) => one.part - one.data)),
      firstPartToLastDataHandled: median(done.map((one) => one.dataDone - one.part)),
      lastDataHandledToResponseHead: median(done.map((one) => one.head - one.dataDone)),
      responseHeadToFirstWrite: median(done.map((one) => one.firstWrite - one.head)),
      total: median(done.map((one) => one.firstWrite - one.start)),
    },
  };
  writeFileSync(`/tmp/phase-timer-${process.pid}.json`, `${JSON.stringify(summary, null, 2)}\n`);
});
