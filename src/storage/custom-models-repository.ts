import type { Kysely } from 'kysely';
import { bumpChangeCounter } from './changes-repository.js';
import type { CustomModelRow, Database } from './schema.js';

/** A model an owner declared (or a shipped one whose prices they override), with their prices in USD per million tokens. */
export interface CustomModelRecord {
  readonly ownerId: string;
  readonly provider: string;
  readonly model: string;
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  readonly cachedInputPerMTok: number | undefined;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly supportsTools: boolean;
  readonly supportsVision: boolean;
  readonly qualityScore: number | undefined;
  readonly activeParamsB: number | undefined;
  /** What the model does; an embedding model has `embedding` and no output (maxOutputTokens 0). */
  readonly kind: 'chat' | 'embedding';
  readonly embedding: CustomEmbedding | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** An owner's embedding model's vectors. */
export interface CustomEmbedding {
  readonly dimensions: number;
  readonly shortenable: boolean;
  /** Models of one space give comparable vectors. */
  readonly space: string;
}

/** What `upsert` stores; a model declared without a kind is a chat model. */
export type CustomModelInput = Omit<CustomModelRecord, 'createdAt' | 'updatedAt' | 'kind' | 'embedding'> & {
  readonly kind?: CustomModelRecord['kind'] | undefined;
  readonly embedding?: CustomEmbedding | undefined;
};

function toRecord(row: CustomModelRow): CustomModelRecord {
  return {
    ownerId: row.owner_id,
    provider: row.provider,
    model: row.model,
    inputPerMTok: row.input_per_mtok,
    outputPerMTok: row.output_per_mtok,
    cachedInputPerMTok: row.cached_input_per_mtok ?? undefined,
    contextWindow: row.context_window,
    maxOutputTokens: row.max_output_tokens,
    supportsTools: Boolean(row.supports_tools),
    supportsVision: Boolean(row.supports_vision),
    qualityScore: row.quality_score ?? undefined,
    activeParamsB: row.active_params_b ?? undefined,
    kind: row.kind === 'embedding' ? 'embedding' : 'chat',
    embedding:
      row.kind === 'embedding' && row.embedding_dimensions !== null && row.embedding_space !== null
        ? { dimensions: row.embedding_dimensions, shortenable: Boolean(row.embedding_shortenable), space: row.embedding_space }
        : undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createCustomModelsRepository(db: Kysely<Database>, now: () => number) {
  return {
    /** Declares the model for the owner, or replaces its figures when it is already declared. */
    async upsert(input: CustomModelInput): Promise<{ record: CustomModelRecord; replaced: boolean }> {
      const time = now();
      const fields = {
        input_per_mtok: input.inputPerMTok,
        output_per_mtok: input.outputPerMTok,
        cached_input_per_mtok: input.cachedInputPerMTok ?? null,
        context_window: input.contextWindow,
        max_output_tokens: input.maxOutputTokens,
        supports_tools: input.supportsTools ? 1 : 0,
        supports_vision: input.supportsVision ? 1 : 0,
        quality_score: input.qualityScore ?? null,
        active_params_b: input.activeParamsB ?? null,
        kind: input.kind ?? 'chat',
        embedding_dimensions: input.embedding?.dimensions ?? null,
        embedding_shortenable: input.embedding === undefined ? null : input.embedding.shortenable ? 1 : 0,
        embedding_space: input.embedding?.space ?? null,
        updated_at: time,
      };
      return db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('custom_models')
          .selectAll()
          .where('owner_id', '=', input.ownerId)
          .where('provider', '=', input.provider)
          .where('model', '=', input.model)
          .executeTakeFirst();
        let row: CustomModelRow;
        if (existing === undefined) {
          row = { owner_id: input.ownerId, provider: input.provider, model: input.model, created_at: time, ...fields };
          await trx.insertInto('custom_models').values(row).execute();
        } else {
          row = { ...existing, ...fields };
          await trx
            .updateTable('custom_models')
            .set(fields)
            .where('owner_id', '=', input.ownerId)
            .where('provider', '=', input.provider)
            .where('model', '=', input.model)
            .execute();
        }
        await bumpChangeCounter(trx);
        return { record: toRecord(row), replaced: existing !== undefined };
      });
    },
    async listByOwner(ownerId: string): Promise<CustomModelRecord[]> {
      const rows = await db.selectFrom('custom_models').selectAll().where('owner_id', '=', ownerId).orderBy('provider').orderBy('model').execute();
      return rows.map(toRecord);
    },
    async remove(ownerId: string, provider: string, model: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .deleteFrom('custom_models')
          .where('owner_id', '=', ownerId)
          .where('provider', '=', provider)
          .where('model', '=', model)
          .executeTakeFirst();
        await bumpChangeCounter(trx);
        return Number(result.numDeletedRows) > 0;
      });
    },
  };
}

export type CustomModelsRepository = ReturnType<typeof createCustomModelsRepository>;
