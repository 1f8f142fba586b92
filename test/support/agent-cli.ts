import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How a command-line coding agent ended, with everything it printed. */
export interface CliRun {
  /** null when it was killed. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when it outlived `timeoutMs` and was killed. */
  readonly timedOut: boolean;
}

export interface CliOptions {
  readonly cwd: string;
  /** The child's whole environment: nothing of the test process's leaks in (keys, proxies, a real HOME). */
  readonly env: Readonly<Record<string, string>>;
  /** Kill it after this long, so a hung agent fails the test instead of holding the suite. */
  readonly timeoutMs: number;
  /** Kill it when the test is cancelled. */
  readonly signal?: AbortSignal;
}

const require = createRequire(import.meta.url);

/** Where an installed package's file is (the agents are devDependencies; their binaries are native executables). */
export function packageFile(specifier: string): string {
  return require.resolve(specifier);
}

/**
 * Runs `file args` with stdin closed and waits for it to exit. The child leads its own process group, and the whole
 * group is killed on timeout or cancellation: the agents start helpers of their own (Codex's npm launcher starts the
 * native binary, which starts shells).
 */
export function runCli(file: string, args: readonly string[], options: CliOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: { ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', killGroup, { once: true });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', killGroup);
      // Helpers the agent left behind in its group go with it.
      killGroup();
      resolve({ exitCode, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8'), timedOut });
    });
  });
}

/** A fresh directory under the system's temporary folder, and its removal. */
export function temporaryDirectory(prefix: string): { readonly path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** What a failed run printed, for an assertion message. */
export function describeRun(run: CliRun): string {
  const tail = (text: string) => (text.length > 4_000 ? `…${text.slice(-4_000)}` : text);
  return `exit ${String(run.exitCode)}${run.signal === null ? '' : ` (${run.signal})`}${run.timedOut ? ', timed out' : ''}\n--- stdout\n${tail(run.stdout)}\n--- stderr\n${tail(run.stderr)}`;
}
