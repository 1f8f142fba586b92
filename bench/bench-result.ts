import type { LoadFigures, RateFigures } from './load.js';
import type { ProcessUsage } from './process-stats.js';
import type { StreamTiming } from './stream-timing.js';
import type { CpuProfileSummary } from './cpu-profile-summary.js';
import type { ConcurrentStreamsFigures } from './concurrent-streams.js';

/** Resource use of one phase: the gateway's and the upstream's CPU and memory. */
export interface PhaseUsage {
  readonly phase: string;
  /** The gateway's process; in a direct phase, idle beside it (any CPU it uses there is taken from the direct path). */
  readonly gateway?: ProcessUsage | undefined;
  readonly upstream?: ProcessUsage | undefined;
  /** Gateway CPU time per request answered in the phase, µs (gateway phases only). */
  readonly gatewayCpuUsPerRequest?: number | undefined;
  /** Upstream CPU time per request answered in the phase, µs. */
  readonly upstreamCpuUsPerRequest?: number | undefined;
  /** The bench process itself (autocannon, undici). */
  readonly loadGenerator?: ProcessUsage | undefined;
  /** All cores' busy time, % of one core. */
  readonly machineBusyPercent?: number | undefined;
  /** Busy time of processes that are not part of the bench: anything high here means the run was disturbed. */
  readonly othersPercent?: number | undefined;
}

export interface Target {
  readonly name: string;
  /** e.g. "≤ 0.3 ms" */
  readonly goal: string;
  readonly unit: 'ms' | 'ratio' | 'MiB' | 'count';
  readonly measured: number | undefined;
  readonly met: boolean | undefined;
}

/** What `npm run bench` writes to bench/results/<timestamp>.json. */
export interface BenchResult {
  readonly schema: 'modelport-bench/1';
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly mode: 'light' | 'full';
  /** False when a phase saw errors or non-2xx answers: its figures are not to be trusted. */
  readonly valid: boolean;
  readonly problems: readonly string[];
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly memoryGiB: number;
    readonly node: string;
    readonly kernel: string;
    readonly note: string;
  };
  readonly commit: string | undefined;
  readonly settings: {
    readonly durationS: number;
    readonly warmupS: number;
    readonly connections: number;
    readonly rates: readonly number[];
    readonly streamSamples: number;
    readonly streamChunks: number;
    readonly concurrentStreams: number;
    readonly holdS: number;
    readonly gatewayLogLevel: string;
    /** 1: one gateway process; N > 1: `MODELPORT_WORKERS=N`, its CPU and RSS the sums over the primary and the workers. Absent in results from before it existed. */
    readonly workers?: number | undefined;
    readonly cpuProfile: boolean;
    readonly distOlderThanSrc: boolean;
  };
  readonly saturation: { readonly connections: number; readonly direct: LoadFigures; readonly gateway: LoadFigures };
  readonly rates: readonly { readonly offeredRps: number; readonly direct: RateFigures; readonly gateway: RateFigures }[];
  readonly streams: { readonly samples: number; readonly chunks: number; readonly direct: StreamTiming; readonly gateway: StreamTiming };
  /** Many streams held open at once through the gateway; undefined when the phase was skipped. */
  readonly concurrentStreams?: ConcurrentStreamsFigures | undefined;
  /**
   * The gateway's resident memory with no request in flight, MiB: just started (1 s after its health check), 2 s after
   * the last phase, and with `--settle`, that many seconds after it (what V8 and the gateway give back once idle).
   */
  readonly idleRssMiB: { readonly atStart: number; readonly afterLoad: number; readonly settled?: { readonly afterS: number; readonly rssMiB: number } | undefined };
  readonly processes: readonly PhaseUsage[];
  readonly usageRecords: { readonly gatewayAnswered: number; readonly written: number; readonly ok: number; readonly streamed: number };
  readonly headline: {
    /** Saturated gateway req/s over saturated direct req/s. */
    readonly throughputRatio: number;
    /** Gateway percentile minus direct percentile, ms, at each offered rate. */
    readonly addedLatencyMs: readonly { readonly offeredRps: number; readonly p50: number; readonly p99: number; readonly reached: boolean }[];
    readonly addedTtfbMs: { readonly p50: number; readonly p99: number };
  };
  readonly targets: readonly Target[];
  readonly cpuProfile?: { readonly file: string; readonly summary: CpuProfileSummary };
}
