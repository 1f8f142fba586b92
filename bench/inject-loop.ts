import { createHook } from 'node:async_hooks';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { chatRequestBody } from './chat-request.js';

/**
 * The gateway's own work per request without sockets or an upstream process: the app from dist/ in this process,
 * on a fresh SQLite file, routing to the offline simulator (answers at once), driven by Fastify's inject with
 * `concurrency` requests in flight. Prints this process's CPU µs per request for each round and the median.
 * Every production step runs (key, limits, budgets, routing, fallback, accounting, usage record); the HTTP
 * parsing and the two sockets do not, so the figure is lower than hot-loop's and moves less with other load.
 *
 *   npx tsc -p tsconfig.build.json && flock /tmp/bench.lock npx tsx bench/inject-loop.ts [rounds] [requests] [concurrency]
 *
 * INJECT_COUNT_PROMISES=1 counts instead the promises created per request (async_hooks), a figure that
 * does not move with the machine's load: each is an allocation and, awaited, a microtask turn.
 */

const rounds = Number(process.argv[2] ?? '7');
const requests = Number(process.argv[3] ?? '20000');
const concurrency = Number(process.argv[4] ?? '16');

interface AppModule {
  createApp(config: unknown, logger: unknown): Promise<{ server: InjectServer; repositories: unknown; catalog: unknown; usage: { flush(): Promise<void> }; close(): Promise<void> }>;
}
interface InjectServer {
  inject(options: { method: string; url: string; headers: Record<string, string>; payload: string }): Promise<{ statusCode: number }>;
}

async function main(): Promise<void> {
  const dist = new URL('../dist/', import.meta.url);
  const { createApp } = (await import(new URL('app.js', dist).href)) as AppModule;
  const { loadConfig } = (await import(new URL('config.js', dist).href)) as { loadConfig(env: Record<string, string>): unknown };
  const { createAdminService } = (await import(new URL('admin/admin-service.js', dist).href)) as {
    createAdminService(repositories: unknown, catalog: unknown): {
      createUser(email: string, password: string): Promise<unknown>;
      createRouter(input: { ownerEmail: string; name: string; models: string[]; strategy: string }): Promise<{ id: string }>;
      createKey(input: { ownerEmail: string; name: string }): Promise<{ value: string }>;
    };
  };
  const scratch = mkdtempSync(join(tmpdir(), 'modelport-inject-'));
  const config = loadConfig({
    DATABASE_URL: join(scratch, 'bench.db'),
    PORT: '0',
    LOG_LEVEL: 'silent',
    MODELPORT_BOOTSTRAP: 'false',
    MODELPORT_SIM_TIME_SCALE: '0',
    MODELPORT_DEFAULT_RPM: '100000000',
  });
  const app = await createApp(config, pino({ level: 'silent' }));
  try {
    const admin = createAdminService(app.repositories, app.catalog);
    await admin.createUser('bench@example.com', 'correct horse battery');
    const router = await admin.createRouter({ ownerEmail: 'bench@example.com', name: 'bench', models: ['sim:small', 'sim:medium'], strategy: 'cost_optimized' });
    const { value: apiKey } = await admin.createKey({ ownerEmail: 'bench@example.com', name: 'bench' });
    const request = {
      method: 'POST',
      url: '/api/router/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      payload: chatRequestBody(router.id),
    };
    const run = async (count: number): Promise<void> => {
      let next = 0;
      const worker = async () => {
        while (next < count) {
          next += 1;
          const response = await app.server.inject(request);
          if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    await run(Math.min(requests, 5000));
    if (process.env.INJECT_COUNT_PROMISES === '1') {
      let promises = 0;
      const hook = createHook({
        init(_id, type) {
          if (type === 'PROMISE') promises += 1;
        },
      }).enable();
      await run(requests);
      hook.disable();
      console.log(`promises per request: ${(promises / requests).toFixed(2)}`);
      return;
    }
    const perRequest: number[] = [];
    const onMainThread: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const before = process.cpuUsage();
      const mainBefore = mainThreadCpuMicros();
      await run(requests);
      // Written inside the round: the records' INSERTs (on this thread, or the writer thread's) are per-request work.
      await app.usage.flush();
      const used = process.cpuUsage(before);
      const micros = (used.user + used.system) / requests;
      const mainMicros = (mainThreadCpuMicros() - mainBefore) / requests;
      perRequest.push(micros);
      onMainThread.push(mainMicros);
      console.log(`round ${round + 1}: ${micros.toFixed(1)} µs/req CPU (${mainMicros.toFixed(1)} on the main thread)`);
    }
    const median = (values: number[]) => (values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number).toFixed(1);
    console.log(`median CPU µs/req: ${median(perRequest)} (min ${(perRequest[0] as number).toFixed(1)}); main thread: ${median(onMainThread)}`);
  } finally {
    await app.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();

/** CPU time of this process's main thread (the event loop), µs, from its schedstat (Linux); NaN elsewhere. */
function mainThreadCpuMicros(): number {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[0]) / 1000;
  } catch {
    return Number.NaN;
  }
}
