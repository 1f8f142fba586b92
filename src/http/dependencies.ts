import type { Logger } from 'pino';
import type { UsageRecorder } from '../accounting/usage-recorder.js';
import type { KeyAuthenticator } from '../auth/key-authenticator.js';
import type { RequestRateLimiter } from '../limits/request-rate-limiter.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ModelCatalog } from '../routing/catalog.js';
import type { RouterDirectory } from '../routing/router-directory.js';

/** Everything the HTTP layer needs, built once by main.ts (or a test) and passed in. */
export interface AppDependencies {
  readonly logger: Logger;
  readonly now: () => number;
  readonly authenticator: KeyAuthenticator;
  readonly rateLimiter: RequestRateLimiter;
  readonly routers: RouterDirectory;
  readonly catalog: ModelCatalog;
  readonly providers: ProviderRegistry;
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
