import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** One reading of a process's CPU time and memory from /proc (Linux only). */
export interface ProcessSample {
  /** performance.now() of the reading. */
  readonly atMs: number;
  /** User + system CPU time since the process started, in seconds. */
  readonly cpuS: number;
  /** Resident set size, MiB. */
  readonly rssMiB: number;
  /** Peak resident set size so far (VmHWM), MiB. */
  readonly peakRssMiB: number;
  /** Time the main thread spent runnable but waiting for a core, seconds (/proc/<pid>/schedstat); NaN when unknown. */
  readonly runQueueWaitS: number;
  /** CPU time of the main thread alone (the event loop; not V8's helpers nor worker threads), seconds; NaN when unknown. */
  readonly mainThreadCpuS: number;
}

/** What a process did between two samples. */
export interface ProcessUsage {
  readonly wallS: number;
  readonly cpuS: number;
  /** The main thread's share of cpuS (NaN when unknown). */
  readonly mainThreadCpuS: number;
  /** CPU time over wall time, in % of one core (200 % = both cores of a 2-core machine). */
  readonly cpuPercent: number;
  readonly rssBeforeMiB: number;
  readonly rssAfterMiB: number;
  readonly peakRssMiB: number;
  /** Share of the wall time the main thread was ready to run but had no core: the cost of sharing the machine. */
  readonly waitingForCpuPercent: number;
}

let clockTicks: number | undefined;

/** USER_HZ, the unit of utime/stime in /proc/<pid>/stat (100 on almost every Linux). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** Reads /proc/<pid>/stat and /proc/<pid>/status; undefined when the process is gone or this is not Linux. */
export function sampleProcess(pid: number): ProcessSample | undefined {
  let stat: string;
  let status: string;
  let schedstat = '';
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  try {
    // "<on-cpu ns> <run-queue wait ns> <timeslices>" of the main thread; absent on kernels built without schedstats.
    schedstat = readFileSync(`/proc/${pid}/schedstat`, 'utf8');
  } catch {
    // Leave the wait unknown.
  }
  // The command name (field 2) is in parentheses and may hold spaces; count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so utime (14) and stime (15) sit at indexes 11 and 12.
  const ticks = Number(fields[11]) + Number(fields[12]);
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return {
    atMs: performance.now(),
    cpuS: ticks / ticksPerSecond(),
    rssMiB: round(kib('VmRSS') / 1024, 1),
    peakRssMiB: round(kib('VmHWM') / 1024, 1),
    runQueueWaitS: Number(schedstat.split(' ')[1] ?? Number.NaN) / 1e9,
    mainThreadCpuS: Number(schedstat.split(' ')[0] || Number.NaN) / 1e9,
  };
}

/** The pids of a process's children, from /proc/<pid>/task/<tid>/children (every thread's; Linux 3.5+). */
function childrenOf(pid: number): number[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const tid of tids) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const child of text.trim().split(' ')) if (child !== '') children.push(Number(child));
  }
  return children;
}

/**
 * A process and its children as one: the gateway of `MODELPORT_WORKERS`, a primary and its workers. CPU, RSS, peak
 * RSS, run-queue wait and main-thread CPU are the sums over the processes (RSS counts the pages they share, such as
 * node's binary, once per process: an upper bound). A child that starts or ends between two samples makes their
 * difference wrong; the bench's workers are started before it measures and live as long as the gateway.
 */
export function sampleProcessTree(pid: number): ProcessSample | undefined {
  const root = sampleProcess(pid);
  if (root === undefined) return undefined;
  let { cpuS, rssMiB, peakRssMiB, runQueueWaitS, mainThreadCpuS } = root;
  for (const child of childrenOf(pid)) {
    const sample = sampleProcess(child);
    if (sample === undefined) continue;
    cpuS += sample.cpuS;
    rssMiB += sample.rssMiB;
    peakRssMiB += sample.peakRssMiB;
    runQueueWaitS += sample.runQueueWaitS;
    mainThreadCpuS += sample.mainThreadCpuS;
  }
  return { atMs: performance.now(), cpuS, rssMiB: round(rssMiB, 1), peakRssMiB: round(peakRssMiB, 1), runQueueWaitS, mainThreadCpuS };
}

/** A process to sample: its pid, or `{ tree: pid }` for the process and its children together. */
export type ProcessRef = number | { readonly tree: number };

export function sampleRef(ref: ProcessRef): ProcessSample | undefined {
  return typeof ref === 'number' ? sampleProcess(ref) : sampleProcessTree(ref.tree);
}

export function usageBetween(before: ProcessSample, after: ProcessSample): ProcessUsage {
  const wallS = (after.atMs - before.atMs) / 1000;
  const cpuS = after.cpuS - before.cpuS;
  return {
    wallS: round(wallS, 2),
    cpuS: round(cpuS, 2),
    mainThreadCpuS: round(after.mainThreadCpuS - before.mainThreadCpuS, 4),
    cpuPercent: wallS > 0 ? round((cpuS / wallS) * 100, 1) : 0,
    rssBeforeMiB: before.rssMiB,
    rssAfterMiB: after.rssMiB,
    peakRssMiB: after.peakRssMiB,
    waitingForCpuPercent: wallS > 0 ? round(((after.runQueueWaitS - before.runQueueWaitS) / wallS) * 100, 1) : Number.NaN,
  };
}

/** CPU time all cores spent busy (not idle, not waiting on I/O) since boot, seconds, from /proc/stat. */
function machineBusyS(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  const ticks = (stat.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: busy is everything but idle and iowait.
  const busy = ticks.reduce((sum, value, index) => (index === 3 || index === 4 || index > 7 ? sum : sum + value), 0);
  return busy / ticksPerSecond();
}

export interface PhaseMeasurement<T> {
  readonly value: T;
  readonly usage: Record<string, ProcessUsage>;
  /** Every core's busy time over the phase, in % of one core (a 2-core machine tops out at 200). */
  readonly machineBusyPercent: number | undefined;
  /** The part of that spent by processes other than `pids` (other work on the machine disturbing the run). */
  readonly othersPercent: number | undefined;
}

/** Samples `pids` (or process trees) and the whole machine before and after `work`; a pid that vanished is left out. */
export async function measureProcesses<T>(pids: Readonly<Record<string, ProcessRef>>, work: () => Promise<T>): Promise<PhaseMeasurement<T>> {
  const before = Object.entries(pids).map(([name, ref]) => [name, ref, sampleRef(ref)] as const);
  const busyBefore = machineBusyS();
  const startMs = performance.now();
  const value = await work();
  const wallS = (performance.now() - startMs) / 1000;
  const busyAfter = machineBusyS();
  const usage: Record<string, ProcessUsage> = {};
  for (const [name, ref, first] of before) {
    const last = sampleRef(ref);
    if (first !== undefined && last !== undefined) usage[name] = usageBetween(first, last);
  }
  if (busyBefore === undefined || busyAfter === undefined || wallS <= 0) return { value, usage, machineBusyPercent: undefined, othersPercent: undefined };
  const busyS = busyAfter - busyBefore;
  const oursS = Object.values(usage).reduce((sum, one) => sum + one.cpuS, 0);
  return {
    value,
    usage,
    machineBusyPercent: round((busyS / wallS) * 100, 0),
    othersPercent: round((Math.max(0, busyS - oursS) / wallS) * 100, 0),
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
