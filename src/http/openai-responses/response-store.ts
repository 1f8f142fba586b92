import type { ResponsesRepository } from '../../storage/responses-repository.js';
import type { ResponseItem } from './openai-responses-request-schema.js';

/**
 * Stored Responses API answers (docs/api.md, Stored responses): the response object and every input item it was made
 * from, per owner, for `previous_response_id` and `GET/DELETE …/responses/{id}`. A response whose stored form is over
 * the size limit is answered but not stored (the answer says so); an expired one is gone: deleted when it is read,
 * and by a sweep every hour.
 */

/** Whether an answer was stored, and if not why; `x-modelport-response-stored` gives it on whole answers. */
export type StoreOutcome = 'stored' | 'not_requested' | 'too_large' | 'disabled' | 'failed';

export interface StoredResponse {
  /** The response object as it was answered (`_meta` included). */
  readonly response: Readonly<Record<string, unknown>>;
  /** Every item it was made from, earlier turns' included, in order. */
  readonly inputItems: readonly ResponseItem[];
}

export interface ResponseToStore extends StoredResponse {
  readonly id: string;
  readonly ownerId: string;
  readonly keyId: string | undefined;
}

export interface ResponseStore {
  /** Never throws: a failure to store is an outcome (the answer has been paid for and is still given). */
  save(entry: ResponseToStore): Promise<StoreOutcome>;
  /** The owner's unexpired response; undefined for an unknown id, another owner's, or an expired one. */
  load(id: string, ownerId: string): Promise<StoredResponse | undefined>;
  /** True when the owner had that (unexpired) response. */
  remove(id: string, ownerId: string): Promise<boolean>;
  /** Deletes every expired response now; gives how many. */
  sweep(): Promise<number>;
  /** Stops the sweep. */
  close(): void;
}

export interface ResponseStoreOptions {
  /** How long a response is kept, from its creation. */
  readonly retentionMs: number;
  /** Largest stored form (response and input items, UTF-8 bytes); 0 stores nothing. */
  readonly maxBytes: number;
  readonly now: () => number;
  /** How often expired responses are swept; 0: never (they still vanish when read). @default 3600000 */
  readonly sweepEveryMs?: number;
  /** Told of storage failures, which the requests that met them survive. */
  readonly onError: (error: unknown, action: string) => void;
}

export function createResponseStore(repository: Pick<ResponsesRepository, 'insert' | 'find' | 'remove' | 'deleteExpired'>, options: ResponseStoreOptions): ResponseStore {
  const { now, onError } = options;
  const sweep = () => repository.deleteExpired(now());
  const every = options.sweepEveryMs ?? 3_600_000;
  const timer = every > 0 ? setInterval(() => void sweep().catch((error: unknown) => onError(error, 'sweeping expired responses')), every) : undefined;
  timer?.unref();

  return {
    async save(entry) {
      if (options.maxBytes === 0) return 'disabled';
      const response = JSON.stringify(entry.response);
      const inputItems = JSON.stringify(entry.inputItems);
      const sizeBytes = Buffer.byteLength(response) + Buffer.byteLength(inputItems);
      if (sizeBytes > options.maxBytes) return 'too_large';
      const createdAt = now();
      try {
        await repository.insert({
          id: entry.id,
          ownerId: entry.ownerId,
          keyId: entry.keyId ?? null,
          createdAt,
          expiresAt: createdAt + options.retentionMs,
          response,
          inputItems,
          sizeBytes,
        });
        return 'stored';
      } catch (error) {
        onError(error, 'storing a response');
        return 'failed';
      }
    },
    async load(id, ownerId) {
      const record = await repository.find(id, ownerId);
      if (record === undefined) return undefined;
      if (record.expiresAt <= now()) {
        void repository.remove(id, ownerId).catch((error: unknown) => onError(error, 'deleting an expired response'));
        return undefined;
      }
      return { response: JSON.parse(record.response) as Record<string, unknown>, inputItems: JSON.parse(record.inputItems) as ResponseItem[] };
    },
    async remove(id, ownerId) {
      const record = await repository.find(id, ownerId);
      if (record === undefined) return false;
      await repository.remove(id, ownerId);
      return record.expiresAt > now();
    },
    sweep,
    close() {
      if (timer !== undefined) clearInterval(timer);
    },
  };
}
