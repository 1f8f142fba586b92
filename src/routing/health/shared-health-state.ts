import type { LatencyEstimate } from '../routing-contract.js';

/**
 * What one instance's health tells the others (docs/routing.md, "Shared health").
 * Times are epoch ms on the publisher's clock.
 */
export type HealthEvent =
  /** A provider answered 429 with `retry-after`: skip every model of it until then. Keyed like `providerKeyOf`. */
  | { readonly kind: 'backoff'; readonly provider: string; readonly until: number }
  /** A model's circuit opened (or re-opened after a failed probe): keep it shut until then. */
  | { readonly kind: 'open'; readonly model: string; readonly until: number };

/** One instance's latency moving averages for one model, with the sample counts they rest on. */
export interface LatencyFigures {
  /** NaN when `ttftSamples` is 0. */
  readonly ttftMs: number;
  readonly ttftSamples: number;
  /** NaN when `speedSamples` is 0. */
  readonly tokensPerSecond: number;
  readonly speedSamples: number;
  /** Successful calls measured, of either kind. */
  readonly samples: number;
}

/** Model key → figures: what an instance publishes about the models it measured. */
export type LatencyTable = ReadonlyMap<string, LatencyFigures>;

/**
 * Blends instances' figures into one estimate: each half (time to first token,
 * speed) is the mean of the instances that measured it, weighted by how many
 * samples each rests on; a half nobody measured is NaN. Undefined when no
 * instance has measured the model.
 */
export function blendLatency(parts: readonly LatencyFigures[]): LatencyEstimate | undefined {
  let samples = 0;
  let ttftWeight = 0;
  let ttftSum = 0;
  let speedWeight = 0;
  let speedSum = 0;
  for (const part of parts) {
    samples += part.samples;
    if (part.ttftSamples > 0 && Number.isFinite(part.ttftMs)) {
      ttftWeight += part.ttftSamples;
      ttftSum += part.ttftMs * part.ttftSamples;
    }
    if (part.speedSamples > 0 && Number.isFinite(part.tokensPerSecond)) {
      speedWeight += part.speedSamples;
      speedSum += part.tokensPerSecond * part.speedSamples;
    }
  }
  if (samples === 0) return undefined;
  return {
    ttftMs: ttftWeight === 0 ? Number.NaN : ttftSum / ttftWeight,
    tokensPerSecond: speedWeight === 0 ? Number.NaN : speedSum / speedWeight,
    samples,
  };
}

/**
 * The latency tables other instances published, each replaced whole by the
 * instance's next one and forgotten once stale (`prune`: an instance that
 * stopped publishing has left or lost Redis). Reads are map lookups: the
 * request path never waits on anything.
 */
export class RemoteLatency {
  readonly #sources = new Map<string, { readonly at: number; readonly table: LatencyTable }>();

  /** `at`: when the table was received (this instance's clock). */
  put(source: string, table: LatencyTable, at: number): void {
    const current = this.#sources.get(source);
    if (current !== undefined && current.at > at) return;
    this.#sources.set(source, { at, table });
  }

  /** Forgets the tables received before `olderThan`. */
  prune(olderThan: number): void {
    for (const [source, entry] of this.#sources) if (entry.at < olderThan) this.#sources.delete(source);
  }

  forget(source: string): void {
    this.#sources.delete(source);
  }

  figures(key: string): LatencyFigures[] {
    const found: LatencyFigures[] = [];
    for (const { table } of this.#sources.values()) {
      const figures = table.get(key);
      if (figures !== undefined) found.push(figures);
    }
    return found;
  }

  get size(): number {
    return this.#sources.size;
  }
}
