import type { Logger } from 'pino';
import type { UsageRecorder } from '../accounting/usage-recorder.js';
import type { KeyAuthenticator } from '../auth/key-authenticator.js';
import type { RequestRateLimiter } from '../limits/request-rate-limiter.js';
import type { OwnerProviders } from '../providers/owner-providers.js';
import type { ModelCatalog } from '../routing/catalog.js';
import type { OwnerCatalogs } from '../routing/owner-catalog.js';
import type { RouterDirectory } from '../routing/router-directory.js';

/** Everything the HTTP layer needs, built once by main.ts (or a test) and passed in. */
export interface AppDependencies {
  readonly logger: Logger;
  readonly now: () => number;
  readonly authenticator: KeyAuthenticator;
  readonly rateLimiter: RequestRateLimiter;
  readonly routers: RouterDirectory;
  /** The shipped catalog. */
  readonly catalog: ModelCatalog;
  /** The catalog as each owner sees it: the shipped one with their own models and prices over it. */
  readonly ownerCatalogs: OwnerCatalogs;
  /** The models each owner's routers call: their own credentials first, then the server-wide ones. */
  readonly providers: OwnerProviders;
  readonly usage: UsageRecorder;
  readonly settings: HttpSettings;
}

export interface HttpSettings {
  readonly bodyLimitBytes: number;
  readonly defaultRpm: number;
  readonly requireHttps: boolean;
  readonly trustedProxies: readonly string[];
  readonly maxAttempts: number;
}
