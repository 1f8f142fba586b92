import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { UsageRecordRow } from '../storage/schema.js';
import { USAGE_EXPORT_COLUMNS, usageExportFileName, usageExportLines, usageExportRow, usageExportStream, type UsageExportFormat } from './usage-export.js';

const T0 = Date.UTC(2026, 0, 31, 12, 0, 0, 250);

function record(index: number, changes: Partial<UsageRecordRow> = {}): UsageRecordRow {
  return {
    id: `req_${String(index).padStart(4, '0')}`,
    created_at: T0 + index,
    owner_id: 'usr_owner',
    key_id: 'key_one',
    router_id: 'rt_one',
    model: 'openai:gpt-4o-mini',
    status: 200,
    error_code: null,
    streamed: index % 2,
    prompt_tokens: 10 + index,
    completion_tokens: 5,
    total_tokens: 15 + index,
    cost_usd: 0.000_012_5 * (index + 1),
    latency_ms: 120.5,
    carbon_grams: 0.012,
    attempts: 1,
    counterfactual_cost_usd: index % 3 === 0 ? 0.5 : null,
    energy_wh: 0.03,
    cached_prompt_tokens: 2,
    cache_write_prompt_tokens: 1,
    reasoning_tokens: 0,
    ...changes,
  };
}

async function* pagesOf(...pages: UsageRecordRow[][]): AsyncGenerator<UsageRecordRow[]> {
  for (const page of pages) yield page;
}

async function text(pages: AsyncIterable<UsageRecordRow[]>, format: UsageExportFormat): Promise<string> {
  let out = '';
  for await (const chunk of usageExportLines(pages, format)) out += chunk;
  return out;
}

/** A CSV cell as written: empty for null, true/false, numbers as JavaScript prints them. */
function cell(value: unknown): string {
  return value === null ? '' : String(value);
}

describe('usage export formats', () => {
  const awkward = record(1, { model: 'custom:my "best", model', error_code: 'upstream_error', status: 502 });
  const rows = [record(0), awkward, record(2, { error_code: null, model: null })];

  it('CSV: a header, then one row per record; a model name with a comma and quotes survives a real CSV parser', async () => {
    const csv = await text(pagesOf(rows.slice(0, 2), rows.slice(2)), 'csv');
    const parsed = parse(csv, { columns: true }) as Record<string, string>[];
    assert.deepEqual(Object.keys(parsed[0] ?? {}), [...USAGE_EXPORT_COLUMNS]);
    assert.deepEqual(
      parsed,
      rows.map((row) => Object.fromEntries(Object.entries(usageExportRow(row)).map(([key, value]) => [key, cell(value)]))),
    );
    assert.equal(parsed[1]?.model, 'custom:my "best", model');
    assert.equal(parsed[1]?.createdAt, '2026-01-31T12:00:00.251Z');
    assert.equal(parsed[1]?.streamed, 'true');
    assert.equal(parsed[0]?.streamed, 'false');
    assert.equal(Number(parsed[1]?.costUsd), awkward.cost_usd);
  });

  it('JSON lines: one object per line, equal to the usage row with its time in ISO 8601', async () => {
    const jsonl = await text(pagesOf(rows.slice(0, 1), rows.slice(1)), 'jsonl');
    assert.ok(jsonl.endsWith('\n'));
    const lines = jsonl.slice(0, -1).split('\n');
    assert.equal(lines.length, rows.length);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(parsed, rows.map(usageExportRow));
    assert.deepEqual(Object.keys(parsed[0] ?? {}), [...USAGE_EXPORT_COLUMNS]);
    assert.equal(parsed[1]?.model, 'custom:my "best", model');
    assert.equal(parsed[0]?.counterfactualCostUsd, 0.5);
    assert.equal(parsed[1]?.counterfactualCostUsd, null);
  });

  it('no records: the CSV is its header alone, the JSON lines empty', async () => {
    assert.equal(await text(pagesOf(), 'csv'), `${USAGE_EXPORT_COLUMNS.join(',')}\n`);
    assert.equal(await text(pagesOf([]), 'jsonl'), '');
  });

  it('a text cell a spreadsheet would run as a formula is written inert', async () => {
    const csv = await text(pagesOf([record(0, { model: '=HYPERLINK("http://x")' })]), 'csv');
    const [row] = parse(csv, { columns: true }) as Record<string, string>[];
    assert.equal(row?.model, '\'=HYPERLINK("http://x")');
  });

  it('the stream reads a page only as its reader takes chunks, and destroying it stops the pages', async () => {
    let pulled = 0;
    let stopped = false;
    const pages = (async function* () {
      try {
        for (let page = 0; page < 1000; page += 1) {
          pulled += 1;
          yield [record(page)];
        }
      } finally {
        stopped = true;
      }
    })();
    const stream = usageExportStream(pages, 'jsonl');
    const [first] = (await once(stream, 'data')) as [string];
    assert.equal((JSON.parse(first) as { id: string }).id, 'req_0000');
    stream.pause();
    // Let the stream fill its one-chunk buffer: it then stops asking for pages.
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(pulled <= 3, `pulled ${pulled} pages for one chunk read`);
    stream.destroy();
    await once(stream, 'close');
    // The generator's return runs once its pending step settles.
    for (let turn = 0; turn < 10 && !stopped; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stopped, true);
    assert.ok(pulled < 10, `pulled ${pulled} pages`);
  });

  it('names the download after its range', () => {
    assert.equal(usageExportFileName(Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1), 'csv'), 'modelport-usage-20260101T000000Z-20260201T000000Z.csv');
    assert.equal(usageExportFileName(0, 1000, 'jsonl'), 'modelport-usage-19700101T000000Z-19700101T000001Z.jsonl');
  });
});
