import { createAdminService } from '../admin/admin-service.js';
import { createRouterAdmin } from '../admin/router-admin.js';
import { createSessionStore, type SessionOptions, type SessionStore } from '../auth/sessions.js';
import type { ModelCatalog } from '../catalog/catalog.js';
import type { Storage } from '../storage/database.js';
import { createKeyRotationsRepository } from '../storage/key-rotations-repository.js';
import { createOrganizationsRepository } from '../storage/organizations-repository.js';
import type { Repositories } from '../storage/repositories.js';
import { createSessionsRepository } from '../storage/sessions-repository.js';
import { createUsageAnalyticsRepository } from '../storage/usage-analytics-repository.js';
import { createAccounts, type Accounts } from './accounts.js';
import { createKeys, type Keys } from './keys.js';
import { createLoginThrottle, type LoginThrottleOptions } from './login-throttle.js';
import { createUsageReports } from './usage-report.js';
import { createWorkspaces, type Workspaces } from './workspaces.js';

export interface DashboardServicesOptions {
  readonly sessions?: SessionOptions;
  readonly loginThrottle?: LoginThrottleOptions;
}

/** Everything the dashboard API does, over the same repositories and admin rules as the CLI. */
export interface DashboardServices {
  readonly sessions: SessionStore;
  readonly accounts: Accounts;
  readonly workspaces: Workspaces;
  readonly keys: Keys;
  readonly usage: ReturnType<typeof createUsageReports>;
  readonly routerAdmin: ReturnType<typeof createRouterAdmin>;
  readonly repositories: Repositories;
}

export function createDashboardServices(storage: Storage, repositories: Repositories, catalog: ModelCatalog, now: () => number, options: DashboardServicesOptions = {}): DashboardServices {
  const admin = createAdminService(repositories, catalog, now);
  const organizations = createOrganizationsRepository(storage.db, now);
  return {
    sessions: createSessionStore(createSessionsRepository(storage.db), now, options.sessions),
    accounts: createAccounts(repositories.users, createLoginThrottle(options.loginThrottle)),
    workspaces: createWorkspaces(repositories.users, organizations),
    keys: createKeys(admin, repositories.apiKeys, repositories.routers, createKeyRotationsRepository(storage.db, now), now),
    usage: createUsageReports(createUsageAnalyticsRepository(storage.db), repositories.apiKeys),
    // Owners are found by workspace id here (the id is the owner id); the rules are the CLI's.
    routerAdmin: createRouterAdmin(repositories, catalog, async (ownerId) => {
      const owner = await repositories.users.findById(ownerId);
      if (owner === undefined) throw new Error(`owner ${ownerId} not found`);
      return owner;
    }),
    repositories,
  };
}
