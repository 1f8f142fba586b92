import pino from 'pino';
import { createAdminService, type AdminService } from '../../src/admin/admin-service.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { RequestActivity } from '../../src/lib/request-activity.js';
import type { RouterRecord } from '../../src/storage/routers-repository.js';
import { createGatewayDatabase } from './databases.js';
import { createMailOutbox, registerOutbox, unregisterOutbox, type MailOutbox } from './mail-outbox.js';

export interface Gateway {
  readonly app: App;
  readonly admin: AdminService;
  /** e.g. http://127.0.0.1:PORT/api/router */
  readonly baseUrl: string;
  readonly origin: string;
  readonly ownerEmail: string;
  readonly router: RouterRecord;
  readonly apiKey: string;
  /** The mail the gateway sent (sign-up confirmation links), in place of an SMTP server. */
  readonly outbox: MailOutbox;
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** Environment overrides, as an operator would set them. */
  readonly env?: Record<string, string>;
  /** Models of the seeded router. @default ['sim:small', 'sim:medium'] */
  readonly models?: readonly string[];
  readonly strategy?: string;
  /** Told of every request's start and end, as the idle collector is. */
  readonly activity?: RequestActivity;
}

/**
 * A real gateway on a loopback port over a fresh SQLite file (or the database in
 * TEST_DATABASE_URL), seeded with one owner, one router and one key. Circuit
 * breakers and 429 back-offs are off (`MODELPORT_BREAKER_ENABLED=true` in `env` turns them on).
 * Sign-up is open and its mail goes to `outbox` (`MODELPORT_SIGNUP: ''` in `env` gives the default, closed).
 */
export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const database = await createGatewayDatabase();
  const config = loadConfig({
    DATABASE_URL: database.url,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    MODELPORT_BOOTSTRAP: 'false',
    MODELPORT_SIM_TIME_SCALE: '0',
    MODELPORT_CHANGE_POLL_MS: '50',
    MODELPORT_USAGE_FLUSH_MS: '50',
    // Breakers and 429 back-offs off unless a test turns them on: suites share one gateway and fail
    // models on purpose, and a circuit one test opened would skip the model in the next.
    MODELPORT_BREAKER_ENABLED: 'false',
    MODELPORT_SIGNUP: 'open',
    // Postgres has no file to keep a generated secret beside.
    ...(database.dialect === 'postgres' ? { MODELPORT_SECRET_KEY: 'test-secret-key-for-the-postgres-pass-0123456789' } : {}),
    ...options.env,
  });
  const outbox = createMailOutbox();
  const app = await createApp(config, pino({ level: 'silent' }), { mailer: outbox, ...(options.activity === undefined ? {} : { activity: options.activity }) });
  const admin = createAdminService(app.repositories, app.catalog);
  const ownerEmail = 'owner@example.com';
  await admin.createUser(ownerEmail, 'correct horse battery');
  const router = await admin.createRouter({
    ownerEmail,
    name: 'test router',
    models: options.models ?? ['sim:small', 'sim:medium'],
    strategy: options.strategy ?? 'cost_optimized',
  });
  const { value: apiKey } = await admin.createKey({ ownerEmail, name: 'test key' });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  const scheme = config.tls ? 'https' : 'http';
  const origin = `${scheme}://127.0.0.1:${address.port}`;
  registerOutbox(origin, outbox);
  return {
    app,
    admin,
    origin,
    baseUrl: `${origin}/api/router`,
    ownerEmail,
    router,
    apiKey,
    outbox,
    async close() {
      unregisterOutbox(origin);
      await app.close();
      await database.drop();
    },
  };
}
