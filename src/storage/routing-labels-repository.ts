import { sql, type Kysely } from 'kysely';
import { createId } from '../lib/random-id.js';
import type { Database, RoutingLabelRow, RoutingSampleRow } from './schema.js';

/** A label an `auto` router is fitted on: a prompt's vector, the model, and how good its answer was (0..1). */
export interface RoutingLabel {
  readonly id: string;
  readonly ownerId: string;
  readonly routerId: string;
  readonly modelId: string;
  /** The prompt vector, base64 (src/routing/auto/prompt-vector.ts). */
  readonly vector: string;
  readonly score: number;
  readonly source: 'calibration' | 'feedback';
  /** Feedback only. */
  readonly requestId: string | null;
  /** Feedback only: a key id, or `session:<userId>` for the dashboard's thumbs. */
  readonly raterId: string | null;
  readonly comment: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A calibration example as stored: the router's owner and router are the call's. */
export interface NewCalibrationLabel {
  readonly modelId: string;
  readonly vector: string;
  readonly score: number;
}

/** How many labels a router has and when the newest changed: what its fit is compared with. */
export interface LabelStats {
  readonly count: number;
  /** Epoch ms; 0 without labels. */
  readonly newestAt: number;
}

function toLabel(row: RoutingLabelRow): RoutingLabel {
  return {
    id: row.id,
    ownerId: row.owner_id,
    routerId: row.router_id,
    modelId: row.model_id,
    vector: row.vector,
    score: row.score,
    source: row.source === 'calibration' ? 'calibration' : 'feedback',
    requestId: row.request_id,
    raterId: row.key_id,
    comment: row.comment,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Rows per INSERT of calibration labels: well under SQLite's 32,766 bound parameters at 10 columns a row. */
const INSERT_CHUNK = 500;

export function createRoutingLabelsRepository(db: Kysely<Database>, now: () => number) {
  return {
    /** The sample kept for an auto-routed request, if any (not written yet, pruned, or never auto: undefined). */
    async findSample(requestId: string): Promise<RoutingSampleRow | undefined> {
      return db.selectFrom('routing_samples').selectAll().where('request_id', '=', requestId).executeTakeFirst();
    },

    /**
     * Stores a rater's feedback on a sampled request: one label per (request, rater); a repeat replaces the score and
     * comment and keeps the label's id. The owner, router, model and vector are the sample's.
     */
    async upsertFeedback(sample: RoutingSampleRow, raterId: string, score: number, comment: string | null): Promise<RoutingLabel> {
      const time = now();
      await db
        .insertInto('routing_labels')
        .values({
          id: createId('lbl'),
          owner_id: sample.owner_id,
          router_id: sample.router_id,
          model_id: sample.model_id,
          vector: sample.vector,
          score,
          source: 'feedback',
          request_id: sample.request_id,
          key_id: raterId,
          comment,
          created_at: time,
          updated_at: time,
        })
        .onConflict((conflict) => conflict.columns(['request_id', 'key_id']).doUpdateSet({ score, comment, updated_at: time }))
        .execute();
      const row = await db.selectFrom('routing_labels').selectAll().where('request_id', '=', sample.request_id).where('key_id', '=', raterId).executeTakeFirstOrThrow();
      return toLabel(row);
    },

    /** A rater's label on a request, scoped to its owner (the dashboard shows a stored thumb again). */
    async findFeedback(ownerId: string, requestId: string, raterId: string): Promise<RoutingLabel | undefined> {
      const row = await db
        .selectFrom('routing_labels')
        .selectAll()
        .where('request_id', '=', requestId)
        .where('key_id', '=', raterId)
        .where('owner_id', '=', ownerId)
        .executeTakeFirst();
      return row === undefined ? undefined : toLabel(row);
    },

    /** Replaces a router's calibration labels with these, in one transaction; its feedback stays. */
    async replaceCalibration(ownerId: string, routerId: string, labels: readonly NewCalibrationLabel[]): Promise<void> {
      const time = now();
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('routing_labels').where('router_id', '=', routerId).where('owner_id', '=', ownerId).where('source', '=', 'calibration').execute();
        for (let start = 0; start < labels.length; start += INSERT_CHUNK) {
          const rows = labels.slice(start, start + INSERT_CHUNK).map((label) => ({
            id: createId('lbl'),
            owner_id: ownerId,
            router_id: routerId,
            model_id: label.modelId,
            vector: label.vector,
            score: label.score,
            source: 'calibration',
            request_id: null,
            key_id: null,
            comment: null,
            created_at: time,
            updated_at: time,
          }));
          await trx.insertInto('routing_labels').values(rows).execute();
        }
      });
    },

    /**
     * The newest `limit` labels of a router, newest first; `before` (the last label of the previous page) pages on,
     * so a long read can be split into short ones.
     */
    async listNewest(routerId: string, limit: number, before?: Pick<RoutingLabel, 'createdAt' | 'id'>): Promise<RoutingLabel[]> {
      const rows = await db
        .selectFrom('routing_labels')
        .selectAll()
        .where('router_id', '=', routerId)
        .$if(before !== undefined, (query) =>
          query.where((where) =>
            where.or([where('created_at', '<', before?.createdAt ?? 0), where.and([where('created_at', '=', before?.createdAt ?? 0), where('id', '<', before?.id ?? '')])]),
          ),
        )
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toLabel);
    },

    async stats(routerId: string): Promise<LabelStats> {
      const row = await db
        .selectFrom('routing_labels')
        .select([sql<number | string>`count(*)`.as('count'), sql<number | string | null>`max(updated_at)`.as('newest')])
        .where('router_id', '=', routerId)
        .executeTakeFirst();
      return { count: Number(row?.count ?? 0), newestAt: Number(row?.newest ?? 0) };
    },

    /** Feedback on a router per time bucket (by the label's time): count and mean score. */
    async feedbackBuckets(ownerId: string, routerId: string, from: number, to: number, bucketMs: number): Promise<{ start: number; count: number; meanScore: number }[]> {
      const start = sql<number | string>`(created_at / ${sql.lit(Math.trunc(bucketMs))}) * ${sql.lit(Math.trunc(bucketMs))}`;
      const rows = await db
        .selectFrom('routing_labels')
        .select([start.as('start'), sql<number | string>`count(*)`.as('count'), sql<number | string>`avg(score)`.as('mean')])
        .where('router_id', '=', routerId)
        .where('owner_id', '=', ownerId)
        .where('source', '=', 'feedback')
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy(start)
        .execute();
      return rows.map((row) => ({ start: Number(row.start), count: Number(row.count), meanScore: Number(row.mean) }));
    },

    /**
     * Deletes a router's samples beyond its newest `keep`, at most `batch` rows: the caller repeats (yielding between)
     * until it returns 0, so no single DELETE holds the database long. Order is (created_at, request_id).
     */
    async pruneSamples(routerId: string, keep: number, batch: number): Promise<number> {
      const cutoff = await db
        .selectFrom('routing_samples')
        .select(['created_at', 'request_id'])
        .where('router_id', '=', routerId)
        .orderBy('created_at', 'desc')
        .orderBy('request_id', 'desc')
        .limit(1)
        .offset(keep)
        .executeTakeFirst();
      if (cutoff === undefined) return 0;
      const victims = db
        .selectFrom('routing_samples')
        .select('request_id')
        .where('router_id', '=', routerId)
        .where((where) => where.or([where('created_at', '<', cutoff.created_at), where.and([where('created_at', '=', cutoff.created_at), where('request_id', '<=', cutoff.request_id)])]))
        .limit(batch);
      const result = await db.deleteFrom('routing_samples').where('request_id', 'in', victims).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /**
     * Takes (or renews) the lease on fitting a router until `until`, when no other holder has an unexpired one. Both
     * engines run the upsert atomically: of instances racing for one router, one gets it.
     */
    async acquireRefitLease(routerId: string, holder: string, until: number): Promise<boolean> {
      const time = now();
      await db
        .insertInto('router_refit_leases')
        .values({ router_id: routerId, holder, expires_at: until })
        .onConflict((conflict) =>
          conflict
            .column('router_id')
            .doUpdateSet({ holder, expires_at: until })
            .where((where) => where.or([where('router_refit_leases.expires_at', '<', time), where('router_refit_leases.holder', '=', holder)])),
        )
        .execute();
      const row = await db.selectFrom('router_refit_leases').select('holder').where('router_id', '=', routerId).executeTakeFirst();
      return row?.holder === holder;
    },

    async releaseRefitLease(routerId: string, holder: string): Promise<void> {
      await db.deleteFrom('router_refit_leases').where('router_id', '=', routerId).where('holder', '=', holder).execute();
    },
  };
}

export type RoutingLabelsRepository = ReturnType<typeof createRoutingLabelsRepository>;
