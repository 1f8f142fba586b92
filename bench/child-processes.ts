import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A child this bench started, with the last few KB of what it printed (for error messages). */
export interface BenchChild {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number;
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

const OUTPUT_TAIL_BYTES = 8_192;
const children = new Set<BenchChild>();

export interface SpawnOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Keep stdin as an open pipe (the upstream exits when it closes). */
  readonly stdinPipe?: boolean;
}

export function spawnChild(name: string, command: string, args: readonly string[], options: SpawnOptions): BenchChild {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.stdinPipe === true ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  let tail = '';
  const keep = (data: Buffer) => {
    tail = (tail + data.toString('utf8')).slice(-OUTPUT_TAIL_BYTES);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // BENCH_CHILD_OUTPUT=<dir>: each child's whole output also goes to <dir>/<name>-<pid>.log (V8's --trace-* flags
  // print to stdout, and the tail kept above is 8 KiB).
  const outputDir = process.env.BENCH_CHILD_OUTPUT;
  if (outputDir !== undefined && outputDir !== '') {
    const file = createWriteStream(join(outputDir, `${name.replace(/[^\w.-]+/g, '-')}-${child.pid}.log`));
    child.stdout?.pipe(file, { end: false });
    child.stderr?.pipe(file, { end: false });
    child.once('close', () => file.end());
  }
  child.on('error', (error) => keep(Buffer.from(`\n[${name}] ${error.message}\n`)));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  const handle: BenchChild = {
    name,
    process: child,
    pid: child.pid,
    output: () => tail,
    async stop(graceMs = 5_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      children.delete(handle);
    },
  };
  children.add(handle);
  void exited.then(() => children.delete(handle));
  return handle;
}

export function isRunning(child: BenchChild): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

/** Stops every child still running, in parallel. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...children].map((child) => child.stop(3_000)));
}

/** Last resort on process exit: no waiting is possible there, so SIGKILL. */
export function killAllChildrenNow(): void {
  for (const child of children) if (isRunning(child)) child.process.kill('SIGKILL');
}

/** A TCP port free on 127.0.0.1 right now (for a child that must be told its port). */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** Resolves with the first stdout line of `child` that parses as JSON, within `timeoutMs`. */
export async function readFirstJsonLine(child: BenchChild, timeoutMs: number): Promise<unknown> {
  const stdout = child.process.stdout;
  if (stdout === null) throw new Error(`${child.name} has no stdout`);
  return new Promise((resolve, reject) => {
    let buffered = '';
    const cleanup = () => {
      clearTimeout(timer);
      stdout.off('data', onData);
      child.process.off('exit', onExit);
    };
    const onData = (data: Buffer) => {
      buffered += data.toString('utf8');
      for (const line of buffered.split('\n').slice(0, -1)) {
        try {
          const value: unknown = JSON.parse(line);
          cleanup();
          resolve(value);
          return;
        } catch {
          // Not our line; keep reading.
        }
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`${child.name} exited before it was ready:\n${child.output()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${child.name} was not ready within ${timeoutMs} ms:\n${child.output()}`));
    }, timeoutMs);
    stdout.on('data', onData);
    child.process.once('exit', onExit);
  });
}

/** Polls `url` until it answers 200, the child exits, or `timeoutMs` passes. */
export async function waitForHttpOk(child: BenchChild, url: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (!isRunning(child)) throw new Error(`${child.name} exited before it was ready:\n${child.output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(50);
  }
  throw new Error(`${child.name} did not answer ${url} within ${timeoutMs} ms:\n${child.output()}`);
}
