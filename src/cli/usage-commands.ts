import { MAX_USAGE_LIMIT, parseSince, parseWholeNumber } from '../admin/admin-service.js';
import { toUsageRow } from '../accounting/usage-row.js';
import { usdDigits } from '../lib/money.js';
import type { UsageRecordRow } from '../storage/schema.js';
import type { CommandSpec } from './command.js';
import { formatNumber, isoTime, renderTable, shortTime, type JsonObject } from './output.js';

/** The usage row as JSON: the dashboard's fields (toUsageRow), the time in ISO 8601. */
function usageJson(row: UsageRecordRow): JsonObject {
  const usage = toUsageRow(row);
  return { ...usage, createdAt: isoTime(usage.createdAt) };
}

const listUsage: CommandSpec = {
  noun: 'usage',
  verb: 'list',
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
    const table =
      rows.length === 0
        ? '(no usage records)\n'
        : renderTable(
            ['TIME', 'KEY', 'ROUTER', 'MODEL', 'STATUS', 'TOKENS', 'COST $', 'LATENCY ms', 'CO2 g'],
            rows.map(toUsageRow).map((usage) => [
              shortTime(usage.createdAt),
              usage.keyId ?? '-',
              usage.routerId ?? '-',
              usage.model ?? '-',
              usage.errorCode === null ? String(usage.status) : `${usage.status} ${usage.errorCode}`,
              String(usage.totalTokens),
              usdDigits(usage.costUsd),
              formatNumber(usage.latencyMs, 0),
              formatNumber(usage.carbonGrams, 4),
            ]),
          );
    return { json: { usage: rows.map(usageJson) }, stdout: table };
  },
};

export const usageCommands: readonly CommandSpec[] = [listUsage];
