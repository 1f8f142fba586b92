import type { LatencySummary } from './latency-summary.js';
import type { WriteFigures } from './analytics-writer.js';

export type RangeName = '24h' | '30d' | '1y';

/** One range's report: its figures checked against what was written, and how long it took. */
export interface ReportFigures {
  readonly bucket: 'hour' | 'day';
  /** The range the report covered (the asked one widened to whole buckets), ISO 8601. */
  readonly from: string;
  readonly to: string;
  readonly requests: number;
  readonly expectedRequests: number;
  readonly costUsd: number;
  readonly expectedCostUsd: number;
  /** Requests, the series' requests and cost (to 1e-10 USD) equal what was written in the range, on every repetition. */
  readonly matched: boolean;
  /** The first report of the range (the reader thread may start, caches are cold), ms. */
  readonly firstMs: number;
  readonly medianMs: number;
  readonly maxMs: number;
  readonly samplesMs: readonly number[];
  /** GET /healthz while this range's reports ran. */
  readonly healthz: LatencySummary;
}

export interface DialectResult {
  readonly dialect: 'sqlite' | 'postgres';
  /** Where the database was kept (--keep); undefined when it was dropped. */
  readonly database: string | undefined;
  readonly records: number;
  readonly write: WriteFigures;
  readonly gateway: { readonly code: 'dist' | 'src'; readonly command: string };
  readonly reports: Readonly<Record<RangeName, ReportFigures>>;
  /** GET /healthz every intervalMs, one at a time: idle, during the reports (one at a time), during two at once. */
  readonly healthz: {
    readonly intervalMs: number;
    readonly idle: LatencySummary;
    readonly underReports: LatencySummary;
    readonly underTwoReports: LatencySummary;
    /** underReports over idle, per figure. */
    readonly ratioUnderReports: { readonly p50: number; readonly p99: number; readonly max: number };
  };
  /** The gateway's VmRSS, MiB: idle (median), just before two 1-year reports at once, and the most seen during them. */
  readonly rss: { readonly idleMiB: number; readonly beforeTwoReportsMiB: number; readonly twoReportsMaxMiB: number; readonly samples: number };
  /** Two 1-year reports sent together, `pairs` times: the time until both answered, ms. */
  readonly twoReports: { readonly pairs: number; readonly medianMs: number; readonly maxMs: number };
  readonly totalsMatched: boolean;
}

/** What `npm run bench:analytics` writes to bench/results/analytics-<timestamp>.json. */
export interface AnalyticsResult {
  readonly schema: 'modelport-bench-analytics/1';
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly mode: 'light' | 'full';
  /** False when a report failed or its totals differed from what was written. */
  readonly valid: boolean;
  readonly problems: readonly string[];
  /** Dialects not run, and why (Postgres unreachable). */
  readonly skipped: readonly string[];
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly memoryGiB: number; readonly node: string; readonly kernel: string };
  readonly commit: string | undefined;
  readonly settings: { readonly reps: number; readonly probeIntervalMs: number; readonly gatewayCode: 'dist' | 'src' };
  readonly dialects: readonly DialectResult[];
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : '–');

/** Markdown tables of a result, one section per dialect. */
export function formatAnalyticsTables(result: AnalyticsResult): string {
  const lines: string[] = [];
  for (const dialect of result.dialects) {
    lines.push('', `### Usage analytics on ${dialect.dialect} (${dialect.records.toLocaleString('en')} records, gateway from ${dialect.gateway.code})`, '');
    lines.push(
      `Write: ${dialect.write.records.toLocaleString('en')} records in ${dialect.write.seconds} s, **${dialect.write.recordsPerS.toLocaleString('en')} records/s** (${dialect.write.writer}; ${dialect.write.dropped} not written)`,
      '',
    );
    lines.push('| report | bucket | requests (written) | cost USD (written) | totals | first ms | median ms | max ms | healthz p50 / p99 / max ms |');
    lines.push('|---|---|---:|---:|---|---:|---:|---:|---:|');
    for (const [name, report] of Object.entries(dialect.reports)) {
      lines.push(
        `| ${name} | ${report.bucket} | ${report.requests.toLocaleString('en')} (${report.expectedRequests.toLocaleString('en')}) | ${report.costUsd.toFixed(4)} (${report.expectedCostUsd.toFixed(4)}) | ${report.matched ? 'match' : '**differ**'} | ${ms(report.firstMs)} | ${ms(report.medianMs)} | ${ms(report.maxMs)} | ${ms(report.healthz.p50)} / ${ms(report.healthz.p99)} / ${ms(report.healthz.max)} |`,
      );
    }
    const { idle, underReports, underTwoReports, ratioUnderReports } = dialect.healthz;
    lines.push('', `| GET /healthz every ${dialect.healthz.intervalMs} ms | probes | p50 ms | p99 ms | max ms |`, '|---|---:|---:|---:|---:|');
    for (const [name, summary] of [['idle', idle], ['during reports (one at a time)', underReports], ['during two 1 y reports at once', underTwoReports]] as const) {
      lines.push(`| ${name} | ${summary.count} | ${ms(summary.p50)} | ${ms(summary.p99)} | ${ms(summary.max)} |`);
    }
    lines.push(`| ratio during reports / idle | | ×${ratioUnderReports.p50} | ×${ratioUnderReports.p99} | ×${ratioUnderReports.max} |`);
    lines.push(
      '',
      `Gateway RSS: idle ${dialect.rss.idleMiB} MiB, before two 1 y reports at once ${dialect.rss.beforeTwoReportsMiB} MiB, at most ${dialect.rss.twoReportsMaxMiB} MiB during them (${dialect.rss.samples} samples); the pair answered in ${ms(dialect.twoReports.medianMs)} ms (median of ${dialect.twoReports.pairs}), at most ${ms(dialect.twoReports.maxMs)} ms.`,
      `Totals equal what was written: **${dialect.totalsMatched ? 'yes' : 'NO'}**`,
    );
  }
  for (const skipped of result.skipped) lines.push('', `Skipped ${skipped}.`);
  if (result.problems.length > 0) lines.push('', '### Problems', '', ...result.problems.map((problem) => `- ${problem}`));
  return `${lines.join('\n')}\n`;
}
