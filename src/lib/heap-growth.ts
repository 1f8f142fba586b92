import { setFlagsFromString } from 'node:v8';
import { setsFlag } from './startup-heap.js';

const FLAG = 'heap-growing-percent';
/**
 * MODELPORT_HEAP_GROWING_PERCENT's default: 20. It costs 0–5 % more CPU per request at saturation (more full
 * collections, most of their marking concurrent), and with the young generation's cap (young-generation-cap.ts) took
 * the RSS holding 5,000 streams down by 30–55 MiB in the full bench (277–282 MiB in a fresh gateway, against 339–344;
 * docs/performance.md, Memory of held streams). A gateway mostly holds streams that last seconds; memory is the
 * scarcer resource there. `0` gives V8's own policy back.
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 20;

/**
 * How far above its live objects V8 lets the old generation grow before its next full collection:
 * `--heap-growing-percent`, set at run time (V8 reads it each time it sets the next limit).
 *
 * Why: by default V8 picks a factor between 1.1 and 4 from how fast it collects against how fast the program
 * allocates. A burst of thousands of streams opening at once gets the largest: every request's transient objects
 * live while the burst is queued, are promoted, and die in the old generation; V8 then sets a limit far above what
 * the held streams keep, and does not collect again while they are held. The gateway holding 5,000 streams kept
 * 60–70 MiB of that garbage (RSS ~360 MiB against ~290 with 20 %; docs/performance.md, Memory of held streams).
 * The cost is more frequent full collections, most of whose marking V8 does concurrently.
 *
 * `percent` 0 leaves V8's own policy. Nothing is changed when the operator set the flag themselves (`nodeOptions`).
 */
export function limitHeapGrowth(nodeOptions: readonly string[], percent: number): void {
  if (percent <= 0 || setsFlag(nodeOptions, FLAG)) return;
  setFlagsFromString(`--${FLAG}=${Math.round(percent)}`);
}

/** MODELPORT_HEAP_GROWING_PERCENT: a whole number of percent, 0 for V8's own policy. */
export function heapGrowingPercent(value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const percent = Number(value);
  if (!Number.isInteger(percent) || percent < 0 || percent > 1_000) throw new Error(`MODELPORT_HEAP_GROWING_PERCENT must be a whole number from 0 to 1000 (got "${value}")`);
  return percent;
}
