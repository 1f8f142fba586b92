/** Values `--json` output is made of. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | JsonObject;
export type JsonObject = { readonly [key: string]: JsonValue };

/** Where the CLI writes; process.stdout and process.stderr in the binary. */
export interface TextSink {
  write(text: string): unknown;
}

/** The one JSON object a `--json` invocation prints, followed by a newline. */
export function formatJson(value: JsonObject): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * The error object printed on stdout with `--json`, in the same
 * `{ "error": { message, type, code } }` shape the HTTP API uses.
 */
export function errorJson(message: string, type: string, code: string): JsonObject {
  return { error: { message, type, code } };
}

/** Epoch milliseconds as an ISO 8601 string, or null, for JSON. */
export function isoTime(time: number | undefined): string | null {
  return time === undefined ? null : new Date(time).toISOString();
}

/** Epoch milliseconds as `2026-01-31 12:00Z` (UTC, minutes), or `-`, for tables. */
export function shortTime(time: number | undefined): string {
  if (time === undefined) return '-';
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

/** Column-aligned text: a header row, then one row per item; the last column is not padded. */
export function renderTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

/** Fixed decimals without trailing zeros: 0.000150 → 0.00015, 2.50 → 2.5. */
export function formatNumber(value: number, maxDecimals: number): string {
  return String(Number(value.toFixed(maxDecimals)));
}
