import { createAdminService, type AdminService } from './admin/admin-service.js';
import { loadShippedCatalog } from './catalog/catalog.js';
import type { Config } from './config.js';
import { randomBase62 } from './lib/random-id.js';
import { migrateToLatest, openStorage } from './storage/database.js';
import { createRepositories, type Repositories } from './storage/repositories.js';

export interface BootstrapResult {
  readonly email: string;
  readonly password: string;
  readonly routerId: string;
  readonly apiKey: string;
}

export const DEMO_MODELS = ['sim:small', 'sim:medium', 'sim:large'] as const;

/**
 * On the first start with an empty database: an owner with a random password,
 * a demo router over the offline simulator and a key for it, returned once to be
 * printed (as other servers print an initial admin secret). Never again after.
 */
export async function bootstrapIfEmpty(repositories: Repositories, admin: AdminService): Promise<BootstrapResult | undefined> {
  if ((await repositories.users.count()) > 0) return undefined;
  const email = 'admin@modelport.local';
  const password = randomBase62(20);
  await admin.createUser(email, password);
  const router = await admin.createRouter({ ownerEmail: email, name: 'demo (simulated models)', models: [...DEMO_MODELS], strategy: 'cost_optimized' });
  const { value } = await admin.createKey({ ownerEmail: email, name: 'bootstrap key' });
  return { email, password, routerId: router.id, apiKey: value };
}

/**
 * What the workers' primary does once before it forks (src/workers/): migrate the database and, on a
 * first start, create the bootstrap owner, router and key. The workers then find the schema up to date
 * and never race each other to bootstrap.
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

export function bootstrapBanner(result: BootstrapResult, baseUrl: string): string {
  return [
    '',
    '================ ModelPort first start ================',
    'Created the first owner, a demo router and an API key.',
    'They are shown ONCE; the key cannot be seen again.',
    '',
    `  owner email : ${result.email}`,
    `  password    : ${result.password}`,
    `  router id   : ${result.routerId}   (cost_optimized over ${DEMO_MODELS.join(', ')}: offline simulator)`,
    `  API key     : ${result.apiKey}`,
    '',
    'Try it:',
    `  curl ${baseUrl}/api/router/chat/completions \\`,
    `    -H "Authorization: Bearer ${result.apiKey}" \\`,
    `    -H "Content-Type: application/json" \\`,
    `    -d '{"model":"${result.routerId}","messages":[{"role":"user","content":"Hello!"}]}'`,
    '=======================================================',
    '',
  ].join('\n');
}
