import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Postgres only: `usage_records` is partitioned by `created_at`, one partition per UTC day, created ahead and dropped
 * once every record in it is past the retention. Neither takes a lock that stops writers: a new partition is built as
 * a table of its own and attached (SHARE UPDATE EXCLUSIVE on the parent, which INSERTs do not wait for), and an expired
 * one is detached CONCURRENTLY, then dropped.
 */

const DAY = 86_400_000;
/** Days of partitions kept ready beyond today: writes never wait for one, even if maintenance stops for a week. */
export const USAGE_PARTITION_DAYS_AHEAD = 7;
/** The partition that holds the records kept before the table was partitioned (and any older than its first day). */
export const USAGE_ARCHIVE_PARTITION = 'usage_records_archive';

export interface UsagePartition {
  readonly name: string;
  /** Inclusive; null for the archive (from MINVALUE). */
  readonly from: number | null;
  /** Exclusive. */
  readonly to: number;
}

/** The name of the partition holding the records of the UTC day starting at `dayStart`: usage_records_p20261127. */
export function usagePartitionName(dayStart: number): string {
  return `usage_records_p${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** Creates a day's partition inside a migration's transaction (the table is new: nothing writes to it yet). */
export async function createUsagePartitionInTransaction(db: Kysely<unknown>, dayStart: number): Promise<void> {
  await sql`create table if not exists ${sql.id(usagePartitionName(dayStart))} partition of usage_records for values from (${sql.lit(dayStart)}) to (${sql.lit(dayStart + DAY)})`.execute(db);
}

/** The partitions of `usage_records`, oldest first. */
export async function listUsagePartitions(db: Kysely<Database>): Promise<UsagePartition[]> {
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
    where p.relname = 'usage_records' and p.relnamespace = to_regnamespace(current_schema())`.execute(db);
  const partitions: UsagePartition[] = [];
  for (const row of rows) {
    const match = /FROM \((MINVALUE|'?(-?\d+)'?)\) TO \('?(-?\d+)'?\)/.exec(row.bound);
    if (match === null) continue;
    partitions.push({ name: row.name, from: match[1] === 'MINVALUE' ? null : Number(match[2]), to: Number(match[3]) });
  }
  return partitions.sort((a, b) => a.to - b.to);
}

/** Makes sure a partition exists for each day from `now`'s to `daysAhead` later; resolves with the names it created. */
export async function ensureUsagePartitions(db: Kysely<Database>, now: number, daysAhead = USAGE_PARTITION_DAYS_AHEAD): Promise<string[]> {
  const today = Math.floor(now / DAY) * DAY;
  const existing = await listUsagePartitions(db);
  const covered = (day: number) => existing.some((partition) => (partition.from ?? Number.NEGATIVE_INFINITY) <= day && day < partition.to);
  const created: string[] = [];
  for (let day = today; day <= today + daysAhead * DAY; day += DAY) {
    if (covered(day)) continue;
    if (await attachDayPartition(db, day)) created.push(usagePartitionName(day));
  }
  return created;
}

/** Makes sure the days holding these times have partitions (a write for a day not created ahead). */
export async function ensureUsagePartitionsFor(db: Kysely<Database>, times: Iterable<number>): Promise<void> {
  const existing = await listUsagePartitions(db);
  const days = new Set([...times].map((time) => Math.floor(time / DAY) * DAY));
  for (const day of days) {
    if (existing.some((partition) => (partition.from ?? Number.NEGATIVE_INFINITY) <= day && day < partition.to)) continue;
    await attachDayPartition(db, day);
  }
}

/** The error Postgres gives for a row whose day has no partition. */
export function isMissingPartition(error: unknown): boolean {
  return sqlState(error) === '23514' && error instanceof Error && /no partition of relation/.test(error.message);
}

/**
 * Builds a day's partition as a table of its own, with a CHECK that proves its rows fit (so ATTACH need not scan it),
 * then attaches it. Another instance doing the same at once makes this one's attempt fail harmlessly: false.
 */
async function attachDayPartition(db: Kysely<Database>, dayStart: number): Promise<boolean> {
  const name = usagePartitionName(dayStart);
  const end = dayStart + DAY;
  try {
    await db.transaction().execute(async (trx) => {
      // Waiting behind a long report for the parent's lock would queue every writer behind this statement.
      await sql`set local lock_timeout = '5s'`.execute(trx);
      await sql`create table ${sql.id(name)} (like usage_records including defaults)`.execute(trx);
      await sql`alter table ${sql.id(name)} add constraint ${sql.id(`${name}_range`)} check (created_at >= ${sql.lit(dayStart)} and created_at < ${sql.lit(end)})`.execute(trx);
      await sql`alter table usage_records attach partition ${sql.id(name)} for values from (${sql.lit(dayStart)}) to (${sql.lit(end)})`.execute(trx);
      await sql`alter table ${sql.id(name)} drop constraint ${sql.id(`${name}_range`)}`.execute(trx);
    });
    return true;
  } catch (error) {
    if (isAlreadyThere(error)) return false;
    throw error;
  }
}

/**
 * Detaches and drops every partition whose records are all older than `cutoff` (the archive too, once its last day
 * is); resolves with the names dropped. A detach left pending (an instance stopped in the middle) is finished first.
 */
export async function dropExpiredUsagePartitions(db: Kysely<Database>, cutoff: number): Promise<string[]> {
  const dropped: string[] = [];
  for (const partition of await listUsagePartitions(db)) {
    if (partition.to > cutoff) continue;
    try {
      await sql`alter table usage_records detach partition ${sql.id(partition.name)} concurrently`.execute(db);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/pending detach|being detached|FINALIZE/i.test(message)) {
        await sql`alter table usage_records detach partition ${sql.id(partition.name)} finalize`.execute(db);
      } else if (isGone(error)) {
        continue;
      } else {
        throw error;
      }
    }
    await sql`drop table if exists ${sql.id(partition.name)}`.execute(db);
    dropped.push(partition.name);
  }
  return dropped;
}

function sqlState(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

/** The table or the partition another instance created first: duplicate_table, or a bound that now overlaps. */
function isAlreadyThere(error: unknown): boolean {
  const state = sqlState(error);
  return state === '42P07' || state === '42P17' || (error instanceof Error && /would overlap/.test(error.message));
}

/** A partition another instance detached or dropped first. */
function isGone(error: unknown): boolean {
  const state = sqlState(error);
  return state === '42P01' || (error instanceof Error && /is not a partition/.test(error.message));
}
