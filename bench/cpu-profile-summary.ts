import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The parts of V8's .cpuprofile format (as written by `node --cpu-prof`) this summary reads. */
interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface HotSpot {
  /** `function (file:line)`, or V8's own buckets such as `(garbage collector)`. */
  readonly name: string;
  readonly ms: number;
  /** Share of the busy (non-idle) time. */
  readonly percent: number;
}

export interface CpuProfileSummary {
  readonly busyMs: number;
  readonly idleMs: number;
  /** Functions by self time: where the CPU actually was. */
  readonly selfTime: readonly HotSpot[];
  /** Self time grouped by package (npm package, node internals, the gateway's own dist/ files). */
  readonly byPackage: readonly HotSpot[];
  /** The gateway's own functions (dist/) by total time, callees included. */
  readonly ownTotalTime: readonly HotSpot[];
}

function shortPath(url: string): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = path.lastIndexOf('/node_modules/');
  if (inModules >= 0) return path.slice(inModules + '/node_modules/'.length);
  const inDist = path.lastIndexOf('/dist/');
  if (inDist >= 0) return path.slice(inDist + 1);
  return path;
}

function packageOf(url: string): string {
  if (url === '') return '(V8 / native)';
  if (url.startsWith('node:')) return 'node: internals';
  const path = shortPath(url);
  if (path.startsWith('dist/')) return `gateway ${path.split('/').slice(0, 2).join('/')}`;
  if (path !== url.replace(/^file:\/\//, '')) {
    const parts = path.split('/');
    return (parts[0]?.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
  }
  return path;
}

function top(totals: Map<string, number>, busyMs: number, count: number): HotSpot[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, microseconds]) => ({ name, ms: Math.round(microseconds / 1000), percent: Math.round((microseconds / 1000 / busyMs) * 1000) / 10 }));
}

/** Reads a .cpuprofile and ranks where the time went. `count` rows per list. */
export function summarizeCpuProfile(file: string, count = 25): CpuProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node] as const));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const label = (id: number): string => {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) return '(unknown)';
    const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
    return frame.url === '' ? name : `${name} (${shortPath(frame.url)}:${frame.lineNumber + 1})`;
  };

  const self = new Map<string, number>();
  const packages = new Map<string, number>();
  const ownTotal = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  profile.samples.forEach((id, index) => {
    // timeDeltas[i] is the time since the previous sample; charge it to this one.
    const micros = profile.timeDeltas[index] ?? 0;
    const name = label(id);
    // (idle) is the event loop waiting; (program) is native work (syscalls, HTTP parsing) and counts as busy.
    if (name === '(idle)') {
      idle += micros;
      return;
    }
    busy += micros;
    self.set(name, (self.get(name) ?? 0) + micros);
    const pkg = packageOf(byId.get(id)?.callFrame.url ?? '');
    packages.set(pkg, (packages.get(pkg) ?? 0) + micros);
    const seen = new Set<string>();
    // Bounded by the stack depth: parent links end at the root.
    for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
      const url = byId.get(current)?.callFrame.url ?? '';
      if (!shortPath(url).startsWith('dist/')) continue;
      const own = label(current);
      if (seen.has(own)) continue;
      seen.add(own);
      ownTotal.set(own, (ownTotal.get(own) ?? 0) + micros);
    }
  });
  const busyMs = busy / 1000;
  return {
    busyMs: Math.round(busyMs),
    idleMs: Math.round(idle / 1000),
    selfTime: top(self, busyMs, count),
    byPackage: top(packages, busyMs, count),
    ownTotalTime: top(ownTotal, busyMs, count),
  };
}

export function formatCpuProfileSummary(summary: CpuProfileSummary, file: string): string {
  const table = (title: string, rows: readonly HotSpot[]) =>
    [`| ${title} | ms | % of busy |`, '|---|---:|---:|', ...rows.map((row) => `| ${row.name.replaceAll('|', '\\|')} | ${row.ms} | ${row.percent} |`)].join('\n');
  return [
    `### Gateway CPU profile (${file})`,
    '',
    `Busy ${summary.busyMs} ms, idle ${summary.idleMs} ms (whole gateway lifetime, start-up included; profiling slows the gateway).`,
    '',
    table('self time: function (file:line)', summary.selfTime),
    '',
    table('self time by package', summary.byPackage),
    '',
    table('gateway code (dist/) total time, callees included', summary.ownTotalTime),
    '',
  ].join('\n');
}

// Usable on its own: `npx tsx bench/cpu-profile-summary.ts <file.cpuprofile>`.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (file === undefined) {
    process.stderr.write('usage: tsx bench/cpu-profile-summary.ts <file.cpuprofile> [rows]\n');
    process.exit(2);
  }
  process.stdout.write(formatCpuProfileSummary(summarizeCpuProfile(file, Number(process.argv[3] ?? '25')), file));
}
