/**
 * Which of the gateway's source files one request crosses: a real gateway in this process (the offline simulator,
 * SQLite), V8's precise coverage counting every function call, counters reset after a warm-up, then one request of
 * each kind; a file is crossed when any of its functions ran for that request. Reads the built gateway (`dist/`), so
 * it can also be pointed at another build of the repo to compare (`--dist /elsewhere/dist`).
 *
 *   npx tsx bench/request-path.ts [--dist DIR] [--json]
 */
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Options {
  readonly dist: string;
  readonly json: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  let dist = resolve('dist');
  let json = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--dist') dist = resolve(argv[(index += 1)] ?? 'dist');
    else if (argument === '--json') json = true;
    else throw new Error(`unknown option ${argument}: --dist DIR, --json`);
  }
  return { dist, json };
}

/** The built files (as `src/…​.ts`) whose functions were called since the last take. */
async function crossedFiles(session: Session, dist: string): Promise<string[]> {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith(pathToFileURL(dist).href)) continue;
    if (!script.functions.some((fn) => fn.ranges.some((range) => range.count > 0))) continue;
    const path = relative(dist, new URL(script.url).pathname).replace(/\.js$/, '.ts');
    files.add(`src/${path}`);
  }
  return [...files].sort();
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const folder = mkdtempSync(join(tmpdir(), 'modelport-request-path-'));
  const load = (path: string) => import(pathToFileURL(join(options.dist, path)).href);
  const [{ createApp }, { loadConfig }, { createAdminService }, pino] = await Promise.all([load('app.js'), load('config.js'), load('admin/admin-service.js'), import('pino')]);
  const config = loadConfig({
    DATABASE_URL: `sqlite://${join(folder, 'gateway.db')}`,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    MODELPORT_BOOTSTRAP: 'false',
    MODELPORT_SIM_TIME_SCALE: '0',
    // Nothing periodic may run inside the measured request: change polls and usage flushes wait a minute.
    MODELPORT_CHANGE_POLL_MS: '60000',
    MODELPORT_USAGE_FLUSH_MS: '60000',
    MODELPORT_USAGE_WRITER: 'inline',
  });
  const app = await createApp(config, pino.default({ level: 'silent' }));
  const admin = createAdminService(app.repositories, app.catalog);
  await admin.createUser('path@example.com', 'correct horse battery');
  const router = await admin.createRouter({ ownerEmail: 'path@example.com', name: 'path', models: ['sim:small', 'sim:medium'], strategy: 'cost_optimized' });
  const { value: apiKey } = await admin.createKey({ ownerEmail: 'path@example.com', name: 'path' });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.server.address();
  const url = `http://127.0.0.1:${address.port}/api/router/v1/chat/completions`;
  const send = async (stream: boolean) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: router.id, messages: [{ role: 'user', content: 'Which files do I cross?' }], stream }),
    });
    if (response.status !== 200) throw new Error(`answered ${response.status}: ${await response.text()}`);
    await response.text();
    // The stream's end and the usage record run after the last byte: let them.
    await new Promise((done) => setTimeout(done, 20));
  };

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const paths: Record<string, string[]> = {};
  for (const stream of [false, true]) {
    for (let warm = 0; warm < 5; warm += 1) await send(stream);
    await crossedFiles(session, options.dist);
    await send(stream);
    paths[stream ? 'streamed' : 'whole'] = await crossedFiles(session, options.dist);
  }
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  await app.close();
  rmSync(folder, { recursive: true, force: true });

  if (options.json) {
    process.stdout.write(`${JSON.stringify(paths, null, 2)}\n`);
    return;
  }
  for (const [kind, files] of Object.entries(paths)) {
    const folders = new Set(files.map((file) => file.split('/').slice(0, -1).join('/')));
    process.stdout.write(`\n${kind} chat completion: ${files.length} files in ${folders.size} folders\n`);
    for (const file of files) process.stdout.write(`  ${file}\n`);
  }
}

await main();
