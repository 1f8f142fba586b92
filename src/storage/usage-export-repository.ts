import type { Kysely } from 'kysely';
import type { Database, UsageRecordRow } from './schema.js';

export interface UsageExportQuery {
  /** One owner's records; absent: every owner's (the operator's CLI). */
  readonly ownerId?: string | undefined;
  /** Records created in [from, to), epoch ms. */
  readonly from: number;
  readonly to: number;
  readonly routerId?: string | undefined;
  readonly keyId?: string | undefined;
  /** Records read per query. @default 5000 */
  readonly pageSize?: number | undefined;
}

export const DEFAULT_EXPORT_PAGE_SIZE = 5000;

/**
 * Every record of the query, oldest first, a page at a time. Each page starts strictly after the last record of the
 * one before on (created_at, id), so memory stays one page at any volume, no record is read twice or skipped when
 * several share a millisecond, and no OFFSET makes later pages slower. Stopping the generator (`return()`, as a
 * destroyed stream does) stops the loop before its next query.
 */
export async function* exportPages(db: Kysely<Database>, query: UsageExportQuery): AsyncGenerator<UsageRecordRow[], void, undefined> {
  const pageSize = query.pageSize ?? DEFAULT_EXPORT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive whole number, not ${pageSize}`);
  let after: { readonly time: number; readonly id: string } | undefined;
  for (;;) {
    let select = db.selectFrom('usage_records').selectAll().where('created_at', '<', query.to);
    if (query.ownerId !== undefined) select = select.where('owner_id', '=', query.ownerId);
    if (query.routerId !== undefined) select = select.where('router_id', '=', query.routerId);
    if (query.keyId !== undefined) select = select.where('key_id', '=', query.keyId);
    const last = after;
    if (last === undefined) select = select.where('created_at', '>=', query.from);
    else {
      // The plain lower bound lets the (owner_id, created_at) index start at the position; the OR settles ties.
      select = select
        .where('created_at', '>=', last.time)
        .where((eb) => eb.or([eb('created_at', '>', last.time), eb.and([eb('created_at', '=', last.time), eb('id', '>', last.id)])]));
    }
    const page = await select.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(pageSize).execute();
    if (page.length > 0) yield page;
    const tail = page.at(-1);
    if (page.length < pageSize || tail === undefined) return;
    after = { time: tail.created_at, id: tail.id };
  }
}

/** The export's reads, bound to a database, for the repositories the admin service and the dashboard share. */
export function createUsageExportRepository(db: Kysely<Database>) {
  return {
    pages: (query: UsageExportQuery) => exportPages(db, query),
  };
}

export type UsageExportRepository = ReturnType<typeof createUsageExportRepository>;
