import { createAdminService, type AdminService } from './admin/admin-service.js';
import { loadShippedCatalog } from './catalog/catalog.js';
import type { Config } from './config.js';
import { BOOTSTRAP_OWNER_EMAIL, SIGN_IN_LINK_TTL_MS, issueSignInLink } from './dashboard/accounts.js';
import { SIGN_IN_LINK_PATH } from './http/dashboard/auth-routes.js';
import { randomBase62 } from './lib/random-id.js';
import { migrateToLatest, openStorage } from './storage/database.js';
import { createRepositories, type Repositories } from './storage/repositories.js';
import { createSignupVerificationsRepository, type SignupVerificationsRepository } from './storage/signup-verifications-repository.js';

export interface BootstrapResult {
  readonly email: string;
  readonly password: string;
  readonly routerId: string;
  readonly apiKey: string;
  /** The one-time sign-in link's token (SIGN_IN_LINK_TTL_MS); only its hash is stored. */
  readonly signInToken: string;
}

export const DEMO_MODELS = ['sim:small', 'sim:medium', 'sim:large'] as const;

/**
 * On the first start with an empty database: an owner with a random password,
 * a demo router over the offline simulator, a key for it and a one-time link that signs
 * the owner in to the dashboard, returned once to be printed (as other servers print an
 * initial admin secret). Never again after.
 */
export async function bootstrapIfEmpty(repositories: Repositories, admin: AdminService, verifications: SignupVerificationsRepository): Promise<BootstrapResult | undefined> {
  if ((await repositories.users.count()) > 0) return undefined;
  const email = BOOTSTRAP_OWNER_EMAIL;
  const password = randomBase62(20);
  await admin.createUser(email, password);
  const router = await admin.createRouter({ ownerEmail: email, name: 'demo (simulated models)', models: [...DEMO_MODELS], strategy: 'cost_optimized' });
  const { value } = await admin.createKey({ ownerEmail: email, name: 'bootstrap key' });
  const signInToken = await issueSignInLink(verifications, email, Date.now());
  return { email, password, routerId: router.id, apiKey: value, signInToken };
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
    return await bootstrapIfEmpty(repositories, createAdminService(repositories, loadShippedCatalog()), createSignupVerificationsRepository(storage.db));
  } finally {
    await storage.close();
  }
}

/** The dashboard's address on a server reached at `origin` (the web app is served at the root). */
export const dashboardUrl = (origin: string): string => `${origin}/`;

/** The one-time sign-in link of a first start. */
export const signInLinkUrl = (origin: string, token: string): string => `${origin}${SIGN_IN_LINK_PATH}?token=${token}`;

/** What every start after the first prints: one line. */
export const dashboardLine = (origin: string): string => `ModelPort dashboard: ${dashboardUrl(origin)}\n`;

/** What the first start prints, `origin` being the server's address without a trailing slash. */
export function bootstrapBanner(result: BootstrapResult, origin: string): string {
  return [
    '',
    '================ ModelPort first start ================',
    'Created the first owner, a demo router and an API key.',
    'They are shown ONCE; the key cannot be seen again.',
    '',
    `  dashboard   : ${dashboardUrl(origin)}`,
    `  sign in     : ${signInLinkUrl(origin, result.signInToken)}`,
    `                (opens the dashboard signed in; works once, for ${SIGN_IN_LINK_TTL_MS / 60_000} minutes)`,
    `  owner email : ${result.email}`,
    `  password    : ${result.password}   (to sign in later at ${origin}/signin)`,
    `  router id   : ${result.routerId}   (cost_optimized over ${DEMO_MODELS.join(', ')}: offline simulator)`,
    `  API key     : ${result.apiKey}`,
    '',
    'Try it:',
    `  curl ${origin}/api/router/chat/completions \\`,
    `    -H "Authorization: Bearer ${result.apiKey}" \\`,
    `    -H "Content-Type: application/json" \\`,
    `    -d '{"model":"${result.routerId}","messages":[{"role":"user","content":"Hello!"}]}'`,
    '=======================================================',
    '',
  ].join('\n');
}
