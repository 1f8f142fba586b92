import cluster from 'node:cluster';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * What a rate-limit admission costs in the multi-process mode (`MODELPORT_WORKERS`), where the primary holds the
 * logs and a worker asks it over Node's IPC channel: one worker makes `count` admissions, `burst` at a time (the
 * admissions of one event-loop turn, as a busy worker has several requests per turn), against the store built in
 * dist/. Prints the CPU µs per admission of the worker and of the primary, and the wall time, for each burst size.
 *
 *   npx tsc -p tsconfig.build.json && flock /tmp/bench.lock npx tsx bench/ipc-limits.ts [count] [bursts, e.g. 1,8]
 */

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const count = Number(process.argv[2] ?? '50000');
const bursts = (process.argv[3] ?? '1,4,8').split(',').map(Number);

interface IpcModule {
  serveWindowStore(): unknown;
  createIpcWindowStore(): { admit(id: string, checks: readonly unknown[], now: number): unknown };
}

const load = async (): Promise<IpcModule> => (await import(pathToFileURL(resolve(ROOT, 'dist/workers/ipc-window-store.js')).href)) as IpcModule;

interface Figures {
  readonly burst: number;
  readonly workerUs: number;
  readonly wallMs: number;
}

if (cluster.isPrimary) {
  (await load()).serveWindowStore();
  const worker = cluster.fork();
  await new Promise<void>((ready) => worker.on('message', (message: unknown) => message === 'ready' && ready()));
  const lines: string[] = ['| burst (admissions per turn) | worker CPU µs/admission | primary CPU µs/admission | wall µs/admission |', '|---:|---:|---:|---:|'];
  for (const burst of bursts) {
    const before = process.cpuUsage();
    worker.send({ run: burst });
    // The worker's own store talks to the primary on the same channel: its figures are the message with a burst.
    const figures = await new Promise<Figures>((done) => {
      const listener = (message: Partial<Figures>) => {
        if (typeof message?.burst !== 'number') return;
        worker.off('message', listener);
        done(message as Figures);
      };
      worker.on('message', listener);
    });
    const primary = process.cpuUsage(before);
    const primaryUs = (primary.user + primary.system) / count;
    lines.push(`| ${burst} | ${figures.workerUs.toFixed(1)} | ${primaryUs.toFixed(1)} | ${((figures.wallMs * 1000) / count).toFixed(1)} |`);
  }
  worker.kill();
  process.stdout.write(`${count} admissions per row, one worker, dist/ of ${ROOT}\n\n${lines.join('\n')}\n`);
  process.exit(0);
} else {
  const store = (await load()).createIpcWindowStore();
  const checks = [{ subject: 'key:bench:rpm', limit: 1e12, weight: 1, windowMs: 60_000 }];
  let id = 0;
  process.on('message', async (message: { run: number }) => {
    // Warm-up, not measured.
    for (let done = 0; done < 2_000; done += message.run) await Promise.all(Array.from({ length: message.run }, () => store.admit(`w${id++}`, checks, Date.now())));
    const before = process.cpuUsage();
    const started = performance.now();
    for (let done = 0; done < count; done += message.run) await Promise.all(Array.from({ length: message.run }, () => store.admit(`m${id++}`, checks, Date.now())));
    const used = process.cpuUsage(before);
    process.send!({ burst: message.run, workerUs: (used.user + used.system) / count, wallMs: performance.now() - started } satisfies Figures);
  });
  process.send!('ready');
}
