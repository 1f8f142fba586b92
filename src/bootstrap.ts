import { randomBase62 } from './lib/random-id.js';
import type { AdminService } from './admin/admin-service.js';
import type { Repositories } from './storage/repositories.js';

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
