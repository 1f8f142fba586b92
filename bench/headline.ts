import type { BenchResult, Target } from './bench-result.js';
import type { ConcurrentStreamsFigures } from './concurrent-streams.js';
import type { StreamTiming } from './stream-timing.js';

/** The targets from the performance issue; docs/performance.md lists the same. */
const TARGETS = {
  addedP50At500Ms: 0.3,
  addedP99At500Ms: 1.5,
  throughputRatio: 0.2,
  addedTtfbP50Ms: 0.5,
  concurrentStreams: 5000,
  concurrentStreamsRssMiB: 300,
  idleRssMiB: 100,
} as const;

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function target(name: string, goal: string, unit: Target['unit'], measured: number | undefined, met: (value: number) => boolean): Target {
  return { name, goal, unit, measured, met: measured === undefined ? undefined : met(measured) };
}

/** Gateway against direct: the differences and the ratio the bench exists for, and whether each target is met. */
export function computeHeadline(
  saturation: BenchResult['saturation'],
  rates: BenchResult['rates'],
  streams: { readonly direct: StreamTiming; readonly gateway: StreamTiming },
  concurrent?: ConcurrentStreamsFigures,
  idleRssMiB?: BenchResult['idleRssMiB'],
): { headline: BenchResult['headline']; targets: Target[] } {
  const throughputRatio = round3(saturation.gateway.achievedRps / saturation.direct.achievedRps);
  const addedLatencyMs = rates.map((rate) => ({
    offeredRps: rate.offeredRps,
    p50: round3(rate.gateway.latencyMs.p50 - rate.direct.latencyMs.p50),
    p99: round3(rate.gateway.latencyMs.p99 - rate.direct.latencyMs.p99),
    reached: rate.direct.reached && rate.gateway.reached,
  }));
  const addedTtfbMs = {
    p50: round3(streams.gateway.ttfbMs.p50 - streams.direct.ttfbMs.p50),
    p99: round3(streams.gateway.ttfbMs.p99 - streams.direct.ttfbMs.p99),
  };
  const at500 = addedLatencyMs.find((added) => added.offeredRps === 500);
  return {
    headline: { throughputRatio, addedLatencyMs, addedTtfbMs },
    targets: [
      target('added latency p50 at 500 req/s', `≤ ${TARGETS.addedP50At500Ms} ms`, 'ms', at500?.p50, (value) => value <= TARGETS.addedP50At500Ms),
      target('added latency p99 at 500 req/s', `≤ ${TARGETS.addedP99At500Ms} ms`, 'ms', at500?.p99, (value) => value <= TARGETS.addedP99At500Ms),
      target('throughput at saturation, gateway/direct', `≥ ${TARGETS.throughputRatio.toFixed(2)}`, 'ratio', throughputRatio, (value) => value >= TARGETS.throughputRatio),
      target('added TTFB p50', `≤ ${TARGETS.addedTtfbP50Ms} ms`, 'ms', addedTtfbMs.p50, (value) => value <= TARGETS.addedTtfbP50Ms),
      // Held at once, every one ended properly: fewer than asked (a light run) cannot meet the target.
      target(
        `streams open at once through one process, no errors${concurrent === undefined ? '' : ` (${concurrent.errors} errors of ${concurrent.requested})`}`,
        `≥ ${TARGETS.concurrentStreams}`,
        'count',
        concurrent?.maxOpenAtOnce,
        (value) => value >= TARGETS.concurrentStreams && concurrent?.errors === 0,
      ),
      target('gateway RSS holding those streams', `< ${TARGETS.concurrentStreamsRssMiB} MiB`, 'MiB', concurrent?.gatewayRssMaxMiB, (value) => value < TARGETS.concurrentStreamsRssMiB),
      target('idle RSS, just started', `< ${TARGETS.idleRssMiB} MiB`, 'MiB', idleRssMiB?.atStart, (value) => value < TARGETS.idleRssMiB),
      // Once settled when the run waited for it (--settle), else 2 s after the last phase.
      target(
        idleRssMiB?.settled === undefined ? 'idle RSS, after the load' : `idle RSS, ${idleRssMiB.settled.afterS} s after the load`,
        `< ${TARGETS.idleRssMiB} MiB`,
        'MiB',
        idleRssMiB?.settled?.rssMiB ?? idleRssMiB?.afterLoad,
        (value) => value < TARGETS.idleRssMiB,
      ),
    ],
  };
}
