/**
 * An exponentially weighted moving average: each sample moves the value by
 * `smoothing` of the way towards it, so old samples fade geometrically and a
 * model that got slower shows it within a few calls. The first sample is taken
 * whole. NaN until then.
 */
export class MovingAverage {
  readonly #smoothing: number;
  #value = Number.NaN;
  #samples = 0;

  /** @param smoothing weight of the newest sample, in (0, 1] */
  constructor(smoothing: number) {
    this.#smoothing = Math.min(1, Math.max(Number.EPSILON, smoothing));
  }

  add(sample: number): void {
    if (!Number.isFinite(sample)) return;
    this.#value = this.#samples === 0 ? sample : this.#value + this.#smoothing * (sample - this.#value);
    this.#samples += 1;
  }

  get value(): number {
    return this.#value;
  }

  get samples(): number {
    return this.#samples;
  }
}
