import type { WindowEntry } from './window-store.js';

/** Numbers stored per entry, side by side in one Float64Array: when it was admitted, its weight, its window. */
const STRIDE = 3;
const AT = 0;
const WEIGHT = 1;
const WINDOW = 2;
/** Room for this many entries when a log is created. */
const INITIAL_CAPACITY = 16;
/** Entries that left the front (expired or released) are moved out once this many have piled up and they fill half the log. */
const COMPACT_AFTER = 1_024;

/**
 * One subject's sliding log, in columns. A busy key has an entry for every request of a whole window (480,000 at
 * 8,000 req/s), so an entry is three numbers in a shared Float64Array and a slot in an array of ids: no object, no
 * map entry, no boxed time (an object per entry cost about 110 bytes more, and the collector had to visit each).
 *
 * Entries `head…end` are in time order. Expiry moves `head`; a released entry becomes a hole (id undefined, weight 0)
 * until the log is compacted; `total` is the weight of the live ones. An entry is found by its admission time (a
 * binary search, then the few entries of that millisecond) or, without one, by walking back from the newest.
 */
export class SubjectLog {
  private data = new Float64Array(INITIAL_CAPACITY * STRIDE);
  private ids: Array<string | undefined> = [];
  private head = 0;
  private end = 0;
  /** Holes (released entries) between head and end. */
  private holes = 0;
  /** Weight of the live entries. */
  total = 0;

  /** Live (admitted, not released) entries inside the log. */
  get size(): number {
    return this.end - this.head - this.holes;
  }

  /** Drops the entries whose window has passed at `now` (and holes at the front). An entry at t is inside (now - window, now]. */
  expire(now: number): void {
    const { data, ids } = this;
    while (this.head < this.end) {
      const offset = this.head * STRIDE;
      const id = ids[this.head];
      if (id !== undefined && (data[offset + AT] as number) > now - (data[offset + WINDOW] as number)) break;
      if (id === undefined) this.holes -= 1;
      else this.total -= data[offset + WEIGHT] as number;
      ids[this.head] = undefined;
      this.head += 1;
    }
    if (this.head === this.end) this.clear();
    else if (this.head >= COMPACT_AFTER && this.head * 2 >= this.end) this.compact();
  }

  /** Adds an entry, in time order (an injected clock may step back: then it is inserted in place). */
  add(id: string, at: number, weight: number, windowMs: number): void {
    if (this.end * STRIDE === this.data.length) this.makeRoom();
    let index = this.end;
    while (index > this.head && this.atOf(index - 1) > at) index -= 1;
    if (index < this.end) {
      this.data.copyWithin((index + 1) * STRIDE, index * STRIDE, this.end * STRIDE);
      this.ids.splice(index, 0, id);
    } else {
      this.ids[index] = id;
    }
    const offset = index * STRIDE;
    this.data[offset + AT] = at;
    this.data[offset + WEIGHT] = weight;
    this.data[offset + WINDOW] = windowMs;
    this.end += 1;
    this.total += weight;
  }

  /** Index of the live entry `id`, admitted at `at` if known; -1 when it is not in the log. */
  find(id: string, at?: number): number {
    const { ids } = this;
    if (at === undefined) {
      for (let index = this.end - 1; index >= this.head; index -= 1) if (ids[index] === id) return index;
      return -1;
    }
    let low = this.head;
    let high = this.end;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.atOf(middle) < at) low = middle + 1;
      else high = middle;
    }
    for (let index = low; index < this.end && this.atOf(index) === at; index += 1) if (ids[index] === id) return index;
    return -1;
  }

  /** Releases the entry at `index` (from `find`). */
  remove(index: number): void {
    const offset = index * STRIDE;
    this.total -= this.data[offset + WEIGHT] as number;
    this.data[offset + WEIGHT] = 0;
    this.ids[index] = undefined;
    if (index === this.end - 1) {
      this.end -= 1;
      this.ids.length = this.end;
    } else {
      this.holes += 1;
    }
    if (this.size === 0) this.clear();
    else if (this.holes >= COMPACT_AFTER && this.holes * 2 >= this.end - this.head) this.compact();
  }

  /** Sets the weight of the entry at `index` (from `find`). */
  reweigh(index: number, weight: number): void {
    const offset = index * STRIDE + WEIGHT;
    this.total += weight - (this.data[offset] as number);
    this.data[offset] = weight;
  }

  /**
   * For a refused check: the wait until enough weight has left the window for `weight` more within `limit`
   * (Infinity when it never can), and until every live entry has left it.
   */
  waits(weight: number, limit: number, windowMs: number, now: number): { retryAfterMs: number; resetMs: number } {
    const { data, ids } = this;
    let retryAfterMs = Number.POSITIVE_INFINITY;
    if (weight <= limit) {
      let freed = 0;
      for (let index = this.head; index < this.end; index += 1) {
        if (ids[index] === undefined) continue;
        freed += data[index * STRIDE + WEIGHT] as number;
        if (this.total - freed + weight <= limit) {
          retryAfterMs = this.atOf(index) + windowMs - now;
          break;
        }
      }
    }
    return { retryAfterMs, resetMs: this.atOf(this.newestIndex()) + windowMs - now };
  }

  /** When the newest entry leaves its window (with one window per subject, the last of them to leave). */
  newestExpiry(): number {
    const newest = this.newestIndex();
    return this.atOf(newest) + (this.data[newest * STRIDE + WINDOW] as number);
  }

  /** Every live entry inside its window at `now`. */
  *live(now: number): Generator<Omit<WindowEntry, 'subject'>> {
    const { data, ids } = this;
    for (let index = this.head; index < this.end; index += 1) {
      const id = ids[index];
      const offset = index * STRIDE;
      const at = data[offset + AT] as number;
      const windowMs = data[offset + WINDOW] as number;
      if (id !== undefined && at > now - windowMs) yield { id, at, weight: data[offset + WEIGHT] as number, windowMs };
    }
  }

  /** Moves the live entries to the front, dropping holes; the storage shrinks when it is mostly empty. */
  compact(): void {
    const live = this.size;
    const capacity = this.data.length / STRIDE;
    const target = capacity > 4 * Math.max(INITIAL_CAPACITY, live) ? Math.max(INITIAL_CAPACITY, 2 * live) : capacity;
    const source = this.data;
    const data = target === capacity ? source : new Float64Array(target * STRIDE);
    const ids: Array<string | undefined> = [];
    let to = 0;
    for (let from = this.head; from < this.end; from += 1) {
      const id = this.ids[from];
      if (id === undefined) continue;
      // Forwards, and `to` never passes `from`: copying within one array overwrites only entries already moved.
      for (let field = 0; field < STRIDE; field += 1) data[to * STRIDE + field] = source[from * STRIDE + field] as number;
      ids.push(id);
      to += 1;
    }
    this.data = data;
    this.ids = ids;
    this.head = 0;
    this.end = to;
    this.holes = 0;
  }

  /** The newest live entry (the log is not empty). */
  private newestIndex(): number {
    let newest = this.end - 1;
    while (newest > this.head && this.ids[newest] === undefined) newest -= 1;
    return newest;
  }

  private atOf(index: number): number {
    return this.data[index * STRIDE + AT] as number;
  }

  /** Full: compact if a quarter or more is dead, otherwise double the storage. */
  private makeRoom(): void {
    if ((this.head + this.holes) * 4 >= this.end) {
      this.compact();
      if (this.end * STRIDE < this.data.length) return;
    }
    const data = new Float64Array(this.data.length * 2);
    data.set(this.data);
    this.data = data;
  }

  private clear(): void {
    this.ids = [];
    this.head = 0;
    this.end = 0;
    this.holes = 0;
    this.total = 0;
    if (this.data.length > INITIAL_CAPACITY * STRIDE) this.data = new Float64Array(INITIAL_CAPACITY * STRIDE);
  }
}
