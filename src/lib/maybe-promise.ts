/**
 * A value now, or a promise of it. Caches return their hits synchronously as
 * the value, so a request whose lookups all hit crosses no promise layer for
 * them: an `await` of a value still costs an async frame and a microtask turn.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)` now when the value is here, or once the promise resolves. */
export function thenMaybe<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
