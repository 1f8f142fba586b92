import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { AdminInputError, MAX_USAGE_LIMIT, parseSince, parseWholeNumber } from '../admin/admin-service.js';
import { toUsageRow } from '../accounting/usage-row.js';
import { usageExportFormat, usageExportLines, usageExportStream } from '../dashboard/usage-export.js';
import { roundUsd, usdDigits } from '../lib/money.js';
import type { UsageRecordRow } from '../storage/schema.js';
import { UsageError, type CommandSpec } from './command.js';
import { formatNumber, isoTime, renderTable, shortTime, type JsonObject } from './output.js';

const DAY = 86_400_000;
/** `usage summary` without --since: the last 30 days. */
const DEFAULT_SUMMARY_SPAN = 30 * DAY;

/** The usage row as JSON: the dashboard's fields (toUsageRow), the time in ISO 8601. */
function usageJson(row: UsageRecordRow): JsonObject {
  const usage = toUsageRow(row);
  return { ...usage, createdAt: isoTime(usage.createdAt) };
}

const listUsage: CommandSpec = {
  noun: 'usage',
  verb: 'list',
  readsOnly: true,
  summary: 'List usage records (one per request), newest first',
  description:
    'Lists the usage records servers write for every request: tokens, cost, latency, carbon and outcome. Servers write them in batches, so the last second or so of traffic may not be there yet.',
  options: {
    key: { type: 'string', valueName: 'key-id', description: 'Only requests made with this key id (key_...)' },
    owner: { type: 'string', valueName: 'email', description: 'Only requests made with keys of this user' },
    router: { type: 'string', valueName: 'router-id', description: 'Only requests to this router (rt_...)' },
    since: { type: 'string', valueName: 'time', description: 'Only records from this time on: ISO 8601 (2026-01-31T12:00:00Z) or a duration back from now (1h, 7d)' },
    limit: { type: 'string', valueName: 'n', description: `At most this many records, 1 to ${MAX_USAGE_LIMIT} (default 100)` },
  },
  examples: ['modelport usage list --owner owner@example.com --since 1h', 'modelport usage list --key key_AbCdEfGh12345678 --limit 20 --json'],
  async run(options, context) {
    const sinceText = options.string('since');
    const limitText = options.string('limit');
    const admin = await context.admin();
    const rows = await admin.listUsage({
      ownerEmail: options.string('owner'),
      keyId: options.string('key'),
      routerId: options.string('router'),
      since: sinceText === undefined ? undefined : parseSince(sinceText, context.now()),
      limit: limitText === undefined ? undefined : parseWholeNumber(limitText, '--limit'),
    });
    const usages = rows.map(toUsageRow);
    // Only when auto routers answered: what their strongest model would have cost.
    const counterfactual = usages.some((usage) => usage.counterfactualCostUsd !== null);
    const table =
      rows.length === 0
        ? '(no usage records)\n'
        : renderTable(
            ['TIME', 'KEY', 'ROUTER', 'MODEL', 'STATUS', 'TOKENS', 'COST $', ...(counterfactual ? ['STRONGEST $'] : []), 'LATENCY ms', 'CO2 g'],
            usages.map((usage) => [
              shortTime(usage.createdAt),
              usage.keyId ?? '-',
              usage.routerId ?? '-',
              usage.model ?? '-',
              usage.errorCode === null ? String(usage.status) : `${usage.status} ${usage.errorCode}`,
              String(usage.totalTokens),
              usdDigits(usage.costUsd),
              ...(counterfactual ? [usage.counterfactualCostUsd === null ? '-' : usdDigits(usage.counterfactualCostUsd)] : []),
              formatNumber(usage.latencyMs, 0),
              formatNumber(usage.carbonGrams, 4),
            ]),
          );
    return { json: { usage: rows.map(usageJson) }, stdout: table };
  },
};

const summarizeUsage: CommandSpec = {
  noun: 'usage',
  verb: 'summary',
  readsOnly: true,
  summary: "What each auto router cost against always using its strongest model, and its measured quality",
  description:
    "For each auto router of the owner (or the one given): requests, cost, what the same tokens would have cost on the router's strongest model for each prompt (catalog prices), the difference saved, and the feedback scores its answers got. Records are written in batches, so the last second or so of traffic may not be there yet.",
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'The user whose routers to sum up' },
    router: { type: 'string', valueName: 'router-id', description: 'Only this router (rt_...)' },
    since: { type: 'string', valueName: 'time', description: 'From this time on: ISO 8601 or a duration back from now (default 30d)' },
  },
  examples: ['modelport usage summary --owner owner@example.com', 'modelport usage summary --owner owner@example.com --router rt_5VNRyTtKBPT4MDzf5JeF1Q --since 7d --json'],
  async run(options, context) {
    const ownerEmail = options.requiredString('owner');
    const sinceText = options.string('since');
    const to = context.now();
    const from = sinceText === undefined ? to - DEFAULT_SUMMARY_SPAN : parseSince(sinceText, to);
    const only = options.string('router');
    const admin = await context.admin();
    const routers = (await admin.listRoutersWithOwners(ownerEmail)).map((entry) => entry.router);
    if (only !== undefined && !routers.some((router) => router.id === only)) throw new AdminInputError(`No router ${only} belongs to ${ownerEmail}.`);
    const chosen = routers.filter((router) => (only === undefined ? router.strategy === 'auto' : router.id === only));
    const rows = await Promise.all(
      chosen.map(async (router) => {
        const { totals } = await admin.routerSavings({ ownerEmail, routerId: router.id, from, to, bucket: 'day' });
        return { router, totals, saved: roundUsd(totals.savedUsd) };
      }),
    );
    const table =
      rows.length === 0
        ? '(no auto routers)\n'
        : renderTable(
            ['ROUTER', 'NAME', 'REQUESTS', 'COST $', 'STRONGEST $', 'SAVED $', 'SAVED %', 'RATINGS', 'MEAN SCORE'],
            rows.map(({ router, totals, saved }) => [
              router.id,
              router.name,
              String(totals.requests),
              usdDigits(totals.costUsd),
              usdDigits(totals.counterfactualCostUsd),
              usdDigits(saved),
              totals.counterfactualCostUsd > 0 ? formatNumber((100 * saved) / totals.counterfactualCostUsd, 1) : '-',
              String(totals.feedback.count),
              totals.feedback.meanScore === null ? '-' : formatNumber(totals.feedback.meanScore, 3),
            ]),
          );
    return {
      json: {
        from: isoTime(from),
        to: isoTime(to),
        routers: rows.map(({ router, totals, saved }) => ({
          id: router.id,
          name: router.name,
          strategy: router.strategy,
          requests: totals.requests,
          costUsd: roundUsd(totals.costUsd),
          counterfactualCostUsd: roundUsd(totals.counterfactualCostUsd),
          savedUsd: saved,
          feedback: { count: totals.feedback.count, meanScore: totals.feedback.meanScore },
        })),
      },
      stdout: table,
      stderr: `From ${shortTime(from)} to ${shortTime(to)}; STRONGEST is what the router's strongest model would have cost for the same tokens.\n`,
    };
  },
};

const exportUsage: CommandSpec = {
  noun: 'usage',
  verb: 'export',
  readsOnly: true,
  summary: 'Export usage records of a time range as CSV or JSON lines, for billing',
  description:
    'Writes every usage record created from --since up to (not including) --until, oldest first, as CSV with a header row or as one JSON object per line: request id, time (ISO 8601), owner, router, key, model, status, tokens, cost, latency, carbon, energy and attempts. Records are read and written a page at a time, so any range fits in memory. Servers write records in batches, so the last second or so of traffic may not be there yet.',
  options: {
    format: { type: 'string', valueName: 'csv|jsonl', required: true, description: 'csv (a header row, then one row per record) or jsonl (one JSON object per line)' },
    since: { type: 'string', valueName: 'time', required: true, description: 'From this time on: ISO 8601 (2026-01-01T00:00:00Z) or a duration back from now (30d)' },
    until: { type: 'string', valueName: 'time', description: 'Up to this time, not included: ISO 8601 or a duration back from now (default now)' },
    owner: { type: 'string', valueName: 'email', description: "Only this user's records (default every owner's)" },
    router: { type: 'string', valueName: 'router-id', description: 'Only requests to this router (rt_...)' },
    key: { type: 'string', valueName: 'key-id', description: 'Only requests made with this key id (key_...)' },
    output: { type: 'string', valueName: 'file', description: 'Write to this file instead of stdout' },
  },
  examples: [
    'modelport usage export --format csv --since 2026-01-01T00:00:00Z --until 2026-02-01T00:00:00Z --owner owner@example.com --output january.csv',
    'modelport usage export --format jsonl --since 24h --router rt_5VNRyTtKBPT4MDzf5JeF1Q > today.jsonl',
  ],
  async run(options, context) {
    const format = usageExportFormat(options.requiredString('format'));
    if (format === undefined) throw new AdminInputError('--format must be csv or jsonl.');
    const output = options.string('output');
    if (output === undefined && options.boolean('json')) throw new UsageError('--json needs --output: without it the export itself is printed.', 'usage export');
    const now = context.now();
    const from = parseSince(options.requiredString('since'), now);
    const untilText = options.string('until');
    const to = untilText === undefined ? now : parseSince(untilText, now);
    const admin = await context.admin();
    const pages = await admin.exportUsage({ ownerEmail: options.string('owner'), routerId: options.string('router'), keyId: options.string('key'), from, to });
    if (output === undefined) return { json: {}, stdout: '', body: usageExportLines(pages, format) };
    let records = 0;
    const counted = (async function* () {
      for await (const page of pages) {
        records += page.length;
        yield page;
      }
    })();
    try {
      await pipeline(usageExportStream(counted, format), createWriteStream(output));
    } catch (error) {
      // A half-written export would pass for a whole one.
      await rm(output, { force: true }).catch(() => undefined);
      throw error;
    }
    return {
      json: { output, format, from: isoTime(from), to: isoTime(to), records },
      stdout: `Wrote ${records} usage record${records === 1 ? '' : 's'} from ${shortTime(from)} to ${shortTime(to)} to ${output}\n`,
    };
  },
};

export const usageCommands: readonly CommandSpec[] = [listUsage, summarizeUsage, exportUsage];
