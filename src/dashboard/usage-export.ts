import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { toUsageRow, type UsageRow } from '../accounting/usage-row.js';
import type { UsageRecordRow } from '../storage/schema.js';

export type UsageExportFormat = 'csv' | 'jsonl';

export const USAGE_EXPORT_FORMATS: readonly UsageExportFormat[] = ['csv', 'jsonl'];

/** What an export is served as, and the file name's extension. */
export const USAGE_EXPORT_CONTENT: Readonly<Record<UsageExportFormat, { readonly contentType: string; readonly extension: string }>> = {
  csv: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  jsonl: { contentType: 'application/x-ndjson', extension: 'jsonl' },
};

/** A usage row as exported: toUsageRow's fields, its time in ISO 8601. */
export type UsageExportRow = Omit<UsageRow, 'createdAt'> & { readonly createdAt: string };

/** The exported fields in column order: the CSV's header and every JSON line's keys. */
export const USAGE_EXPORT_COLUMNS = [
  'id',
  'createdAt',
  'ownerId',
  'routerId',
  'keyId',
  'model',
  'status',
  'errorCode',
  'streamed',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'cachedPromptTokens',
  'cacheWritePromptTokens',
  'reasoningTokens',
  'costUsd',
  'counterfactualCostUsd',
  'latencyMs',
  'carbonGrams',
  'energyWh',
  'attempts',
] as const satisfies readonly (keyof UsageExportRow)[];

/** One stored record as an export row, its keys in USAGE_EXPORT_COLUMNS order. */
export function usageExportRow(record: UsageRecordRow): UsageExportRow {
  const row = toUsageRow(record);
  const out: Record<string, unknown> = {};
  for (const column of USAGE_EXPORT_COLUMNS) out[column] = column === 'createdAt' ? new Date(row.createdAt).toISOString() : row[column];
  return out as UsageExportRow;
}

const CSV_OPTIONS = {
  columns: [...USAGE_EXPORT_COLUMNS],
  // The default writes true as 1 and false as an empty cell.
  cast: { boolean: (value: boolean) => (value ? 'true' : 'false') },
  // Billing files are opened in spreadsheets: a text cell starting with = + - @ is prefixed with ' so it never runs as a formula.
  escape_formulas: true,
};

/**
 * The export's text, a chunk per page of records (the CSV's header first), each chunk whole lines. Pulled one chunk at
 * a time (Readable.from waits for its reader), so at most a page is held; stopping it stops `pages`.
 */
export async function* usageExportLines(pages: AsyncIterable<readonly UsageRecordRow[]>, format: UsageExportFormat): AsyncGenerator<string, void, undefined> {
  if (format === 'csv') yield stringify([], { ...CSV_OPTIONS, header: true });
  for await (const page of pages) {
    const rows = page.map(usageExportRow);
    if (rows.length === 0) continue;
    yield format === 'csv' ? stringify(rows, { ...CSV_OPTIONS, header: false }) : rows.map((row) => `${JSON.stringify(row)}\n`).join('');
  }
}

/** The export as a stream that holds one chunk (a page) ahead of its reader; destroying it stops the reads. */
export function usageExportStream(pages: AsyncIterable<readonly UsageRecordRow[]>, format: UsageExportFormat): Readable {
  return Readable.from(usageExportLines(pages, format), { objectMode: true, highWaterMark: 1 });
}

/** `csv` or `jsonl`; undefined for anything else. */
export function usageExportFormat(text: string | undefined): UsageExportFormat | undefined {
  return USAGE_EXPORT_FORMATS.find((format) => format === text);
}

/** The download's file name: `modelport-usage-<from>-<to>.<ext>`, the times compact UTC ISO 8601 (20260131T120000Z). */
export function usageExportFileName(from: number, to: number, format: UsageExportFormat): string {
  const compact = (time: number) => new Date(time).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `modelport-usage-${compact(from)}-${compact(to)}.${USAGE_EXPORT_CONTENT[format].extension}`;
}
