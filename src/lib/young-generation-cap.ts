import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { V8_DEFAULT_GROWTH_FACTOR, setsFlag } from './startup-heap.js';

const GROWTH_FLAG = 'semi-space-growth-factor';
const SIZE_FLAG = 'max-semi-space-size';
/** MODELPORT_YOUNG_GENERATION_MIB's default: half of V8's own maximum on 64-bit systems (16 MiB). */
export const DEFAULT_YOUNG_GENERATION_MIB = 8;
/** The values MODELPORT_YOUNG_GENERATION_MIB takes: V8 grows a semi-space by doubling it from 1 MiB. */
const ALLOWED_MIB = [0, 1, 2, 4, 8, 16, 32, 64];

/** What the cap reads and sets; the running V8's by default (tests pass their own). */
export interface YoungGenerationProbe {
  /** The capacity of one semi-space of the young generation now, MiB. */
  semiSpaceMiB(): number;
  /** `--semi-space-growth-factor`: V8 reads it each time it decides to grow the young generation. */
  setGrowthFactor(factor: number): void;
  /** Calls back after garbage collections (not synchronously: after the one that ran, in a later task); returns the unsubscribe. */
  afterCollections(callback: () => void): () => void;
}

/**
 * Keeps V8's young generation at `semiSpaceMiB` per semi-space at most (MODELPORT_YOUNG_GENERATION_MIB), where V8's own
 * maximum on a 64-bit system is 16 MiB: two semi-spaces, so 32 MiB of RSS under any load.
 *
 * Why: V8 grows the young generation by doubling it after collections in which much survived, up to its maximum, and
 * keeps it there while the load lasts. A gateway holding thousands of streams allocates a little for each chunk of
 * each stream all the time, so its young generation stays at 2 × 16 MiB while its live objects are in the old
 * generation; at 8 MiB the gateway holding 5,000 streams took 20–45 MiB less (docs/performance.md, Memory of held streams)
 * for a few percent more CPU per request at saturation (more scavenges).
 *
 * How: V8 reads `--max-semi-space-size` only when the process starts, but `--semi-space-growth-factor` each time it
 * grows the young generation. After each collection this sets the factor to 1 (no growth) once a semi-space has
 * reached the cap, and back to V8's own (2) below it, e.g. after the idle collector let V8 shrink it. V8 grows the
 * young generation only after as many bytes survived as it holds (many scavenges), so a collection's callback, which
 * runs in a later task, comes long before the next growth.
 *
 * `semiSpaceMiB` 0 leaves V8's own policy. Nothing is changed when the operator set `--max-semi-space-size` or
 * `--semi-space-growth-factor` themselves (`nodeOptions`). Returns what stops it.
 */
export function capYoungGeneration(nodeOptions: readonly string[], semiSpaceMiB: number, probe: YoungGenerationProbe = processProbe()): () => void {
  if (semiSpaceMiB <= 0 || setsFlag(nodeOptions, GROWTH_FLAG, SIZE_FLAG)) return () => {};
  let factor: number | undefined;
  const decide = () => {
    // A semi-space's usable capacity is a little under its size (15.73 of 16 MiB): 90 % counts as there.
    const wanted = probe.semiSpaceMiB() >= semiSpaceMiB * 0.9 ? 1 : V8_DEFAULT_GROWTH_FACTOR;
    if (wanted === factor) return;
    factor = wanted;
    probe.setGrowthFactor(wanted);
  };
  decide();
  return probe.afterCollections(decide);
}

/** MODELPORT_YOUNG_GENERATION_MIB: 0 (V8's own policy) or a power of two from 1 to 64. */
export function youngGenerationMiB(value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const mib = Number(value);
  if (!ALLOWED_MIB.includes(mib)) throw new Error(`MODELPORT_YOUNG_GENERATION_MIB must be 0 or a power of two from 1 to 64 (got "${value}")`);
  return mib;
}

function processProbe(): YoungGenerationProbe {
  return {
    semiSpaceMiB() {
      const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
      // Used plus available is one semi-space's capacity (space_size counts both semi-spaces once both are committed).
      return young === undefined ? 0 : (young.space_used_size + young.space_available_size) / 1048576;
    },
    setGrowthFactor: (factor) => setFlagsFromString(`--${GROWTH_FLAG}=${factor}`),
    afterCollections(callback) {
      const observer = new PerformanceObserver(() => callback());
      observer.observe({ entryTypes: ['gc'] });
      return () => observer.disconnect();
    },
  };
}
