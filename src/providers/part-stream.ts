import type { StreamPart } from './contract.js';

/**
 * A model's stream pushed part by part, from the upstream socket's data event
 * to the client's socket in one synchronous run: no promise or iterator result
 * per part. A held stream waits about a second for each chunk; whatever an
 * async layer allocates to wait for it lives through two scavenges and is
 * promoted, so with thousands of held streams every awaiting layer is old-space
 * garbage (docs/performance.md, Memory of held streams).
 */

/** Receives a stream's parts as they are parsed. */
export interface PartSink {
  part(part: StreamPart): void;
  /** The stream ended normally; nothing follows. */
  end(): void;
  /** The stream failed after the parts delivered so far; nothing follows. */
  fail(error: unknown): void;
  /**
   * The parts since the last call came together (one read of the upstream): a sink that gathers
   * its writes sends them now, in one write. Also called before `end` and `fail`.
   */
  endOfBatch?(): void;
}

/**
 * A started model stream, read by push (`pipe`) or by pull (`for await`, one
 * promise per part: for tests and callers that need no more).
 */
export interface PartStream extends AsyncIterable<StreamPart> {
  /**
   * Resolves once the first part (or the end) has arrived, leaving it queued;
   * rejects with the failure when the stream failed before any part. Fallback
   * awaits this: a model that fails before its first part is replaced.
   */
  started(): Promise<void>;
  /** Delivers the queued parts, then each part as it arrives, to the sink (one sink per stream). */
  pipe(sink: PartSink): void;
  /** Back-pressure: stops delivery and pauses the upstream, until `resume()`. */
  pause(): void;
  resume(): void;
  /** Drops the stream and its upstream request; the sink hears nothing more. */
  cancel(): void;
}

/** What a producer controls of its upstream. */
export interface UpstreamFlow {
  pause(): void;
  /** The consumer takes parts again: after a pause, and when a sink is piped. */
  resume(): void;
  /** Stop reading and drop the upstream (a no-op once the stream ended). */
  cancel(): void;
}

type Settled = { readonly ended: true } | { readonly ended: false; readonly error: unknown };

/**
 * Both faces of a pushed stream: the producer (a provider's body reader) calls
 * `push`, `end` and `fail`; the consumer sees a PartStream. Parts wait in a
 * queue only while there is no sink yet or it is paused.
 */
export class PartChannel implements PartStream {
  readonly #flow: UpstreamFlow;
  readonly #queue: StreamPart[] = [];
  #sink: PartSink | undefined;
  #paused = false;
  #settled: Settled | undefined;
  /** The sink heard the end or the failure, or the stream was cancelled. */
  #closed = false;
  #delivering = false;
  #waiting: { resolve: () => void; reject: (error: unknown) => void } | undefined;

  constructor(flow: UpstreamFlow) {
    this.#flow = flow;
  }

  push(part: StreamPart): void {
    if (this.#closed || this.#settled !== undefined) return;
    // The usual case, a sink taking parts as they come: straight to it, no queue (an emptied array's push
    // allocates a new backing store, which would then wait a second for the next chunk).
    if (this.#sink !== undefined && !this.#paused && !this.#delivering && this.#queue.length === 0) {
      this.#delivering = true;
      try {
        this.#sink.part(part);
      } finally {
        this.#delivering = false;
      }
      this.#deliver();
      return;
    }
    this.#queue.push(part);
    this.#wake();
    this.#deliver();
  }

  /** The parts pushed since the last call came in one read of the upstream (producers call it after each read). */
  endBatch(): void {
    if (this.#sink !== undefined && !this.#closed && !this.#delivering) this.#sink.endOfBatch?.();
  }

  end(): void {
    this.#settle({ ended: true });
  }

  fail(error: unknown): void {
    this.#settle({ ended: false, error });
  }

  /**
   * Whether a part pushed now is taken at once: by a sink that is not paused, or, before the sink, as the
   * first part `started()` waits for. A producer may hold what it has not mapped yet while there is none.
   */
  get demand(): boolean {
    if (this.#closed || this.#settled !== undefined) return false;
    return this.#sink === undefined ? this.#queue.length === 0 : !this.#paused && this.#queue.length === 0;
  }

  started(): Promise<void> {
    if (this.#queue.length > 0 || this.#settled?.ended === true) return Promise.resolve();
    if (this.#settled !== undefined) return Promise.reject(this.#settled.error);
    if (this.#closed) return Promise.reject(new Error('the stream was cancelled'));
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  pipe(sink: PartSink): void {
    if (this.#sink !== undefined) throw new Error('a part stream has one sink');
    this.#sink = sink;
    this.#deliver();
    if (!this.#paused && !this.#closed && this.#settled === undefined) this.#flow.resume();
  }

  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    if (this.#settled === undefined) this.#flow.pause();
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    if (this.#settled === undefined) this.#flow.resume();
    this.#deliver();
  }

  cancel(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.length = 0;
    this.#sink = undefined;
    this.#flow.cancel();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamPart> {
    return iteratePartStream(this);
  }

  #settle(settled: Settled): void {
    if (this.#closed || this.#settled !== undefined) return;
    this.#settled = settled;
    this.#wake();
    this.#deliver();
  }

  /** Tells a `started()` waiter that a part, the end or a failure arrived. */
  #wake(): void {
    const waiting = this.#waiting;
    if (waiting === undefined) return;
    this.#waiting = undefined;
    if (this.#queue.length > 0 || this.#settled?.ended !== false) waiting.resolve();
    else waiting.reject(this.#settled.error);
  }

  #deliver(): void {
    // A sink may pause, resume or cancel from inside its callbacks: one loop at a time delivers.
    if (this.#delivering) return;
    this.#delivering = true;
    let delivered = false;
    try {
      while (this.#sink !== undefined && !this.#paused && !this.#closed) {
        const part = this.#queue.shift();
        if (part !== undefined) {
          this.#sink.part(part);
          delivered = true;
          continue;
        }
        const settled = this.#settled;
        if (settled !== undefined) {
          this.#closed = true;
          this.#sink.endOfBatch?.();
          if (settled.ended) this.#sink.end();
          else this.#sink.fail(settled.error);
          return;
        }
        break;
      }
      if (delivered && !this.#closed) this.#sink?.endOfBatch?.();
    } finally {
      this.#delivering = false;
    }
  }
}

/** Pull reading of a pushed stream: parts beyond the one asked for pause the upstream until asked for. */
function iteratePartStream(stream: PartStream): AsyncIterator<StreamPart> {
  const buffered: StreamPart[] = [];
  let settled: Settled | undefined;
  let finished = false;
  let waiter: { resolve: (result: IteratorResult<StreamPart>) => void; reject: (error: unknown) => void } | undefined;
  const deliver = () => {
    const current = waiter;
    if (current === undefined) return;
    waiter = undefined;
    const part = buffered.shift();
    if (part !== undefined) current.resolve({ done: false, value: part });
    else if (settled !== undefined) {
      finished = true;
      if (settled.ended) current.resolve({ done: true, value: undefined });
      else current.reject(settled.error);
    }
  };
  stream.pipe({
    part(part) {
      buffered.push(part);
      if (waiter === undefined) stream.pause();
      else deliver();
    },
    end() {
      settled = { ended: true };
      deliver();
    },
    fail(error) {
      settled = { ended: false, error };
      deliver();
    },
  });
  return {
    next() {
      if (finished) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject };
        if (buffered.length > 0 || settled !== undefined) deliver();
        else stream.resume();
      });
    },
    return() {
      finished = true;
      stream.cancel();
      return Promise.resolve({ done: true, value: undefined });
    },
  };
}

/**
 * A PartStream over any provider's AsyncIterable of parts (an async generator):
 * a provider that pushes returns a PartChannel, which is passed through as it is.
 */
export function toPartStream(source: AsyncIterable<StreamPart>): PartStream {
  if (source instanceof PartChannel) return source;
  const iterator = source[Symbol.asyncIterator]();
  let paused = false;
  let pumping = false;
  let stopped = false;
  const channel = new PartChannel({
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      if (!pumping) void pump();
    },
    cancel: () => {
      stopped = true;
      iterator.return?.().catch(() => undefined);
    },
  });
  const pump = async () => {
    pumping = true;
    try {
      while (!paused && !stopped) {
        const next = await iterator.next();
        if (next.done) {
          stopped = true;
          channel.end();
        } else {
          channel.push(next.value);
          channel.endBatch();
        }
      }
    } catch (error) {
      stopped = true;
      channel.fail(error);
    } finally {
      pumping = false;
    }
  };
  void pump();
  return channel;
}
