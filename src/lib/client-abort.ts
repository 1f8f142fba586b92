/**
 * What routing needs of "the client went away": whether it has, why, and a callback when it does. An AbortSignal
 * satisfies it (agents pass theirs); a routed HTTP request, fallback's attempt and the upstream call each use a
 * ClientAbort, which is not an EventTarget: Node's AbortController and its signal cost about 1 KiB and two `SafeMap`s
 * each (docs/performance.md), and a held stream keeps them, for an event that one or two listeners wait for and that
 * almost never fires.
 */
export interface ClientSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: AbortListener, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: AbortListener): void;
}

/** A function, or an object whose `handleEvent` is called (as EventTarget allows): a class can listen without a closure. */
export type AbortListener = (() => void) | { handleEvent(): void };

/** A ClientSignal its owner aborts once; listeners are called once, in the order they were added. */
export class ClientAbort implements ClientSignal {
  #aborted = false;
  #reason: unknown = undefined;
  /** The first listener in a field: a request's usual one (its attempt) costs no array. */
  #first: AbortListener | undefined = undefined;
  #more: AbortListener[] | undefined = undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.#aborted) return;
    if (this.#first === undefined && this.#more === undefined) this.#first = listener;
    else (this.#more ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.#first === listener) {
      this.#first = undefined;
      return;
    }
    const index = this.#more?.indexOf(listener) ?? -1;
    if (index >= 0) this.#more?.splice(index, 1);
  }

  /** Marks the client gone (an AbortError, as AbortController.abort() gives) and calls the listeners; later calls do nothing. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const first = this.#first;
    const more = this.#more;
    this.#first = undefined;
    this.#more = undefined;
    if (first !== undefined) call(first);
    if (more !== undefined) for (const listener of more) call(listener);
  }
}

function call(listener: AbortListener): void {
  if (typeof listener === 'function') listener();
  else listener.handleEvent();
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (timers/promises' sleep wants an AbortSignal). */
export function abortableDelay(ms: number, signal: ClientSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
