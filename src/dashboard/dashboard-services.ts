import { createAdminService, type AdminService } from '../admin/admin-service.js';
import type { ProviderAdminOptions } from '../admin/provider-admin.js';
import type { RouterLearningDependencies } from '../admin/router-learning.js';
import { createRouterAdmin } from '../admin/router-admin.js';
import { createPasswordHasher, type PasswordHasherOptions } from '../auth/passwords.js';
import { createSessionStore, type SessionOptions, type SessionStore } from '../auth/sessions.js';
import type { ModelCatalog } from '../catalog/catalog.js';
import type { Storage } from '../storage/database.js';
import { createKeyRotationsRepository } from '../storage/key-rotations-repository.js';
import { createOrganizationsRepository } from '../storage/organizations-repository.js';
import type { Repositories } from '../storage/repositories.js';
import { createSessionsRepository } from '../storage/sessions-repository.js';
import { createSignupVerificationsRepository } from '../storage/signup-verifications-repository.js';
import { createUsageAnalyticsRepository } from '../storage/usage-analytics-repository.js';
import { createUsageExportRepository, type UsageExportRepository } from '../storage/usage-export-repository.js';
import { createUsageRollupRepository } from '../storage/usage-rollup-repository.js';
import { DEFAULT_USAGE_RETENTION, type UsageRetention } from '../storage/usage-rollup-spans.js';
import type { Database } from '../storage/schema.js';
import type { Kysely } from 'kysely';
import { createAccounts, type Accounts, type SignUpSettings } from './accounts.js';
import { createKeys, type Keys } from './keys.js';
import { createLoginThrottle, type LoginThrottle, type LoginThrottleOptions } from './login-throttle.js';
import { createPasswordRules } from './password-rules.js';
import { DEFAULT_ACCOUNT_QUOTAS, createQuotaGate, type AccountQuotas } from './quotas.js';
import { createRouterLearningViews, type RouterLearningViews } from './router-learning-views.js';
import { createUsageReports } from './usage-report.js';
import { createWorkspaces, type Workspaces } from './workspaces.js';

export interface DashboardServicesOptions {
  readonly sessions?: SessionOptions;
  readonly loginThrottle?: LoginThrottleOptions;
  /** How many password hashes sign-up and sign-in compute at once, and how many wait. */
  readonly passwordHashing?: PasswordHasherOptions;
  /** Who may sign up and how confirmation links reach them. @default closed: accounts come from the operator */
  readonly signUp?: SignUpSettings;
  /** What one account may create. @default DEFAULT_ACCOUNT_QUOTAS */
  readonly quotas?: AccountQuotas;
  /** How feedback waits for a fresh request's usage record, and the auto predictor's weights (src/admin/router-learning.ts). */
  readonly learning?: Pick<RouterLearningDependencies, 'flushUsage' | 'usageSettleMs' | 'autoModel'>;
  /** The secret and SSRF policy owners' provider keys need. Absent: the dashboard cannot store or test them. */
  readonly providers?: ProviderAdminOptions;
  /** Where usage reports read their rollups (SQLite: a reader thread, off the event loop) and how long usage is kept. */
  readonly usageReports?: { readonly readerDb?: Kysely<Database> | undefined; readonly retention: UsageRetention };
}

const CLOSED_SIGN_UP: SignUpSettings = { open: false, publicUrl: '', mailer: { transport: 'log', send: () => undefined } };

/** Everything the dashboard API does, over the same repositories and admin rules as the CLI. */
export interface DashboardServices {
  readonly sessions: SessionStore;
  readonly accounts: Accounts;
  /** The same throttle the accounts use: its per-IP count runs before a sign-up's or sign-in's body is read. */
  readonly loginThrottle: LoginThrottle;
  readonly workspaces: Workspaces;
  readonly keys: Keys;
  readonly usage: ReturnType<typeof createUsageReports>;
  /** Usage records a page at a time for exports, read where reports read (SQLite: the reader thread). */
  readonly usageExport: UsageExportRepository;
  readonly routerAdmin: ReturnType<typeof createRouterAdmin>;
  /** An `auto` router's calibration uploads, savings and thumbs. */
  readonly routerLearning: RouterLearningViews;
  /** Owners' own provider keys and declared models, with the CLI's rules (src/admin/provider-admin.ts, custom-model-admin.ts). */
  readonly ownerProviders: Pick<AdminService, 'listProviders' | 'addProvider' | 'testProvider' | 'removeProvider' | 'listModels' | 'addModel' | 'removeModel'>;
  readonly repositories: Repositories;
}

export function createDashboardServices(storage: Storage, repositories: Repositories, catalog: ModelCatalog, now: () => number, options: DashboardServicesOptions = {}): DashboardServices {
  const admin = createAdminService(repositories, catalog, now, options.providers);
  const organizations = createOrganizationsRepository(storage.db, now);
  const loginThrottle = createLoginThrottle(options.loginThrottle);
  const quotas = options.quotas ?? DEFAULT_ACCOUNT_QUOTAS;
  const gate = createQuotaGate();
  // Owners are found by workspace id here (the id is the owner id); the rules are the CLI's.
  const routerAdmin = createRouterAdmin(repositories, catalog, async (ownerId) => {
    const owner = await repositories.users.findById(ownerId);
    if (owner === undefined) throw new Error(`owner ${ownerId} not found`);
    return owner;
  });
  return {
    sessions: createSessionStore(createSessionsRepository(storage.db), now, options.sessions),
    accounts: createAccounts(repositories.users, loginThrottle, createPasswordHasher(options.passwordHashing), {
      signUp: options.signUp ?? CLOSED_SIGN_UP,
      verifications: createSignupVerificationsRepository(storage.db),
      passwordRules: createPasswordRules(),
      now,
    }),
    loginThrottle,
    workspaces: createWorkspaces(repositories.users, organizations, { organizationsPerAccount: quotas.organizationsPerAccount, gate }),
    keys: createKeys(admin, repositories.apiKeys, repositories.routers, createKeyRotationsRepository(storage.db, now), now, { keysPerWorkspace: quotas.keysPerWorkspace, gate }),
    usageExport: createUsageExportRepository(options.usageReports?.readerDb ?? storage.db),
    usage: createUsageReports(createUsageAnalyticsRepository(options.usageReports?.readerDb ?? storage.db), repositories.apiKeys, {
      rollups: createUsageRollupRepository(options.usageReports?.readerDb ?? storage.db),
      retention: options.usageReports?.retention ?? DEFAULT_USAGE_RETENTION,
      now,
    }),
    // The dashboard's routers count against the workspace's quota; the CLI (the operator's tool) has none.
    routerAdmin: {
      ...routerAdmin,
      createRouter: (input) =>
        gate({
          subject: `routers:${input.ownerEmail}`,
          noun: 'routers',
          holder: 'This workspace',
          limit: quotas.routersPerWorkspace,
          count: async () => (await repositories.routers.listByOwner(input.ownerEmail)).length,
          create: () => routerAdmin.createRouter(input),
        }),
    },
    routerLearning: createRouterLearningViews({ repositories, catalog, now, ...options.learning }),
    ownerProviders: admin,
    repositories,
  };
}
