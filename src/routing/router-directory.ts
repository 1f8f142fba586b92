import type { MaybePromise } from '../lib/maybe-promise.js';
import { createPromiseCache } from '../lib/promise-cache.js';
import type { RouterRecord, RoutersRepository } from '../storage/routers-repository.js';

export interface RouterDirectory {
  /** A cached router (or a cached "none") synchronously; a promise on a miss. */
  find(id: string): MaybePromise<RouterRecord | undefined>;
  listByOwner(ownerId: string): Promise<RouterRecord[]>;
  invalidate(): void;
}

/** Routers by id, cached until the change watcher says something changed. */
export function createRouterDirectory(routers: RoutersRepository): RouterDirectory {
  const cache = createPromiseCache<string, RouterRecord | undefined>(50_000, (id) => routers.findById(id));
  return {
    find: (id) => cache.get(id),
    listByOwner: (ownerId) => routers.listByOwner(ownerId),
    invalidate: () => cache.clear(),
  };
}
