import type { BenchResult, Target } from './bench-result.js';
import type { LatencySummary } from './latency-summary.js';

const fixed = (value: number | undefined, digits = 3): string => (value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits));
const signed = (value: number, digits = 3): string => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(digits)}` : 'n/a');
const whole = (value: number): string => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function latencyRows(label: string, direct: LatencySummary, gateway: LatencySummary): string[] {
  return (['p50', 'p90', 'p99'] as const).map((key) =>
    row([`${label} ${key} (ms)`, fixed(direct[key]), fixed(gateway[key]), signed(gateway[key] - direct[key])]),
  );
}

/** Every figure of a run as markdown tables (what docs/performance.md quotes). */
export function formatTables(result: BenchResult): string {
  const { saturation, streams } = result;
  const lines: string[] = [
    `## ModelPort benchmark, ${result.startedAt.slice(0, 10)} (${result.mode})`,
    '',
    `${result.machine.cpus} × ${result.machine.cpuModel}, ${result.machine.memoryGiB} GiB, Node ${result.machine.node}, Linux ${result.machine.kernel}. ` +
      `${result.machine.note} Gateway LOG_LEVEL=${result.settings.gatewayLogLevel}` +
      `${result.settings.cpuProfile ? ', under --cpu-prof (slower than normal)' : ''}${result.commit === undefined ? '' : `, commit ${result.commit}`}.` +
      workersNote(result),
    '',
    `### Throughput at saturation (${saturation.connections} connections, ${result.settings.durationS} s, non-streaming)`,
    '',
    row(['', 'direct', 'gateway', 'gateway − direct']),
    row(['---', '---:', '---:', '---:']),
    row(['req/s', whole(saturation.direct.achievedRps), whole(saturation.gateway.achievedRps), `ratio ${fixed(result.headline.throughputRatio, 2)}`]),
    ...latencyRows('latency', saturation.direct.latencyMs, saturation.gateway.latencyMs),
    '',
    `### Latency at fixed offered rates (${result.settings.durationS} s each, non-streaming)`,
    '',
    row(['offered req/s', 'path', 'achieved req/s', 'p50 (ms)', 'p90 (ms)', 'p99 (ms)', 'max (ms)']),
    row(['---:', '---', '---:', '---:', '---:', '---:', '---:']),
  ];
  for (const rate of result.rates) {
    for (const [path, figures] of [['direct', rate.direct], ['gateway', rate.gateway]] as const) {
      const reached = figures.reached ? '' : ' (not reached)';
      const latency = figures.latencyMs;
      lines.push(row([String(rate.offeredRps), path, `${whole(figures.achievedRps)}${reached}`, fixed(latency.p50), fixed(latency.p90), fixed(latency.p99), fixed(latency.max)]));
    }
    const direct = rate.direct.latencyMs;
    const gateway = rate.gateway.latencyMs;
    lines.push(
      row([String(rate.offeredRps), '**added**', '', `**${signed(gateway.p50 - direct.p50)}**`, signed(gateway.p90 - direct.p90), `**${signed(gateway.p99 - direct.p99)}**`, '']),
    );
  }
  lines.push(
    '',
    `### Streams: time to first byte (${streams.samples} sequential streams per path, ${streams.chunks} content chunks each)`,
    '',
    row(['', 'direct', 'gateway', 'added']),
    row(['---', '---:', '---:', '---:']),
    ...latencyRows('TTFB', streams.direct.ttfbMs, streams.gateway.ttfbMs),
    row(['whole stream p50 (ms)', fixed(streams.direct.totalMs.p50), fixed(streams.gateway.totalMs.p50), signed(streams.gateway.totalMs.p50 - streams.direct.totalMs.p50)]),
    '',
    ...concurrentRows(result),
    '### Processes (CPU in % of one core; RSS in MiB)',
    '',
    row(['phase', 'gateway CPU %', 'gateway CPU µs/req', 'gateway waiting for a core %', 'gateway RSS before → after (peak)', 'upstream CPU %', 'upstream CPU µs/req', 'load generator CPU %', 'other processes CPU %']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  );
  for (const phase of result.processes) {
    const gateway = phase.gateway;
    lines.push(
      row([
        phase.phase,
        fixed(gateway?.cpuPercent, 0),
        fixed(phase.gatewayCpuUsPerRequest, 0),
        fixed(gateway?.waitingForCpuPercent, 0),
        gateway === undefined ? 'n/a' : `${fixed(gateway.rssBeforeMiB, 0)} → ${fixed(gateway.rssAfterMiB, 0)} (${fixed(gateway.peakRssMiB, 0)})`,
        fixed(phase.upstream?.cpuPercent, 0),
        fixed(phase.upstreamCpuUsPerRequest, 0),
        fixed(phase.loadGenerator?.cpuPercent, 0),
        fixed(phase.othersPercent, 0),
      ]),
    );
  }
  const usage = result.usageRecords;
  lines.push(
    '',
    `Gateway RSS with no request in flight: ${idleRssText(result.idleRssMiB)}.`,
  );
  lines.push(
    '',
    `Usage records written by the gateway: ${whole(usage.written)} (${whole(usage.ok)} with status 200, ${whole(usage.streamed)} streamed) for ${whole(usage.gatewayAnswered)} answers the bench counted.`,
  );
  if (!result.valid) lines.push('', `**This run is not valid:** ${result.problems.join('; ')}`);
  return `${lines.join('\n')}\n`;
}

function concurrentRows(result: BenchResult): string[] {
  const figures = result.concurrentStreams;
  if (figures === undefined) return [];
  return [
    `### Streams held open at once (${whole(figures.requested)} streams through the gateway, each open ${figures.holdS} s)`,
    '',
    row(['', 'value']),
    row(['---', '---:']),
    row(['most open at the same moment', whole(figures.maxOpenAtOnce)]),
    row(['opened / completed with [DONE] / errors', `${whole(figures.opened)} / ${whole(figures.completed)} / ${whole(figures.errors)}`]),
    row(['all open after (ms)', fixed(figures.allOpenAfterMs, 0)]),
    row(['TTFB while opening, p50 / p99 (ms)', `${fixed(figures.ttfbMs.p50)} / ${fixed(figures.ttfbMs.p99)}`]),
    row(['gateway RSS before → max (MiB)', `${fixed(figures.gatewayRssBeforeMiB, 0)} → ${fixed(figures.gatewayRssMaxMiB, 0)}`]),
    ...(figures.errorSamples.length > 0 ? [row(['first errors', figures.errorSamples.join('; ').replaceAll('|', '\\|')])] : []),
    '',
  ];
}

/** CPU (% of one core) used by processes outside the bench above which a phase counts as disturbed. */
const DISTURBED_PERCENT = 20;

function targetLine(target: Target): string {
  const verdict = target.met === undefined ? 'not measured' : target.met ? 'met' : 'MISSED';
  const measured =
    target.measured === undefined
      ? 'n/a'
      : target.unit === 'ms'
        ? `${signed(target.measured)} ms`
        : target.unit === 'MiB'
          ? `${fixed(target.measured, 0)} MiB`
          : target.unit === 'count'
            ? whole(target.measured)
            : fixed(target.measured, 2);
  return `${target.name}: ${measured} (target ${target.goal}: ${verdict})`;
}

/** The few numbers that matter, printed last. */
export function formatHeadline(result: BenchResult): string {
  const { headline } = result;
  const lines = ['### Headline (gateway against direct, same run, same machine)', ''];
  lines.push(`- throughput at saturation, gateway/direct: ${fixed(headline.throughputRatio, 2)} (target ≥ 0.20)`);
  for (const added of headline.addedLatencyMs) {
    const note = added.reached ? '' : ' (offered rate not reached: latency includes queueing)';
    lines.push(`- added latency at ${added.offeredRps} req/s: p50 ${signed(added.p50)} ms, p99 ${signed(added.p99)} ms${note}`);
  }
  lines.push(`- added time to first byte on streams: p50 ${signed(headline.addedTtfbMs.p50)} ms, p99 ${signed(headline.addedTtfbMs.p99)} ms`);
  const concurrent = result.concurrentStreams;
  if (concurrent !== undefined) {
    lines.push(`- streams open at once: ${whole(concurrent.maxOpenAtOnce)} of ${whole(concurrent.requested)}, ${whole(concurrent.errors)} errors, gateway RSS at most ${fixed(concurrent.gatewayRssMaxMiB, 0)} MiB`);
  }
  lines.push(`- idle RSS: ${idleRssText(result.idleRssMiB)}`);
  const workers = workersNote(result);
  if (workers !== '') lines.push(`-${workers}`);
  lines.push('', 'Targets:', ...result.targets.map((target) => `- ${targetLine(target)}`));
  const disturbed = result.processes.filter((phase) => (phase.othersPercent ?? 0) >= DISTURBED_PERCENT);
  if (disturbed.length > 0) {
    const phases = disturbed.map((phase) => `${phase.phase} (${phase.othersPercent} %)`).join(', ');
    lines.push('', `Warning: other processes used a lot of CPU during ${phases}; rerun on a quiet machine before quoting these figures.`);
  }
  if (!result.valid) lines.push('', `NOT VALID: ${result.problems.join('; ')}`);
  return `${lines.join('\n')}\n`;
}

/** With --workers, what "the gateway" means in every figure; '' for one process. */
function workersNote(result: BenchResult): string {
  const workers = result.settings.workers ?? 1;
  if (workers <= 1) return '';
  return ` The gateway ran as MODELPORT_WORKERS=${workers} (a primary and ${workers} workers): its CPU and RSS are summed over those ${workers + 1} processes, and the targets, set for one process, are read against the sums.`;
}

function idleRssText(idle: BenchResult['idleRssMiB']): string {
  const settled = idle.settled === undefined ? '' : `, ${fixed(idle.settled.rssMiB, 0)} MiB ${idle.settled.afterS} s after it`;
  return `${fixed(idle.atStart, 0)} MiB just started, ${fixed(idle.afterLoad, 0)} MiB 2 s after the last phase${settled}`;
}
