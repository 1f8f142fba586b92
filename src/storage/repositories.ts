import { createApiKeysRepository } from './api-keys-repository.js';
import { createChangesRepository } from './changes-repository.js';
import type { Storage } from './database.js';
import { createRoutersRepository } from './routers-repository.js';
import { createUsageRepository } from './usage-repository.js';
import { createUsersRepository } from './users-repository.js';

export function createRepositories(storage: Storage, now: () => number = Date.now) {
  return {
    users: createUsersRepository(storage.db, now),
    routers: createRoutersRepository(storage.db, now),
    apiKeys: createApiKeysRepository(storage.db, now),
    usage: createUsageRepository(storage.db),
    changes: createChangesRepository(storage.db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
