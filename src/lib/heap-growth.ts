import { setFlagsFromString } from 'node:v8';

const FLAG = 'heap-growing-percent';
/** MODELPORT_HEAP_GROWING_PERCENT's default. */
/**
 * 0: V8's own policy. In the quiet end-of-session bench (docs/performance.md) 20 % took the RSS holding 5,000
 * streams from 408 to 349 MiB but the gateway's CPU per request at saturation from 146 to 178 µs; neither meets the
 * 300 MiB target, and CPU is latency and throughput for every request, so the limit is for operators who hold many
 * streams in little memory to choose.
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 0;

/**
 * How far above its live objects V8 lets the old generation grow before its next full collection:
 * `--heap-growing-percent`, set at run time (V8 reads it each time it sets the next limit).
 *
 * Why: by default V8 picks a factor between 1.1 and 4 from how fast it collects against how fast the program
 * allocates. A burst of thousands of streams opening at once gets the largest: every request's transient objects
 * live while the burst is queued, are promoted, and die in the old generation; V8 then sets a limit far above what
 * the held streams keep, and does not collect again while they are held. The gateway holding 5,000 streams kept
 * 60–70 MiB of that garbage (RSS ~360 MiB against ~290 with 20 %; docs/performance.md, Held streams, fourth round).
 * The cost is more frequent full collections, most of whose marking V8 does concurrently.
 *
 * `percent` 0 leaves V8's own policy. Nothing is changed when the operator set the flag themselves (`nodeOptions`).
 */
export function limitHeapGrowth(nodeOptions: readonly string[], percent: number): void {
  if (percent <= 0 || nodeOptions.some((option) => option.replaceAll('_', '-').includes(FLAG))) return;
  setFlagsFromString(`--${FLAG}=${Math.round(percent)}`);
}

/** MODELPORT_HEAP_GROWING_PERCENT: a whole number of percent, 0 for V8's own policy. */
export function heapGrowingPercent(value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const percent = Number(value);
  if (!Number.isInteger(percent) || percent < 0 || percent > 1_000) throw new Error(`MODELPORT_HEAP_GROWING_PERCENT must be a whole number from 0 to 1000 (got "${value}")`);
  return percent;
}
