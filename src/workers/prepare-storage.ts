import { createAdminService } from '../admin/admin-service.js';
import { bootstrapIfEmpty, type BootstrapResult } from '../bootstrap.js';
import type { Config } from '../config.js';
import { loadShippedCatalog } from '../routing/catalog.js';
import { migrateToLatest, openStorage } from '../storage/database.js';
import { createRepositories } from '../storage/repositories.js';

/**
 * What the primary does once before it forks: migrate the database and, on a
 * first start, create the bootstrap owner, router and key. The workers then find
 * the schema up to date and never race each other to bootstrap.
 */
export async function prepareStorageOnce(config: Config): Promise<BootstrapResult | undefined> {
  const storage = openStorage(config.databaseUrl);
  try {
    await migrateToLatest(storage);
    if (!config.bootstrap) return undefined;
    const repositories = createRepositories(storage, Date.now);
    return await bootstrapIfEmpty(repositories, createAdminService(repositories, loadShippedCatalog()));
  } finally {
    await storage.close();
  }
}
