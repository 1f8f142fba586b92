import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The real executable, as operators run it. */
export const BIN = fileURLToPath(new URL('../../bin/modelport', import.meta.url));
const BUILT_ENTRY = fileURLToPath(new URL('../../dist/cli-main.js', import.meta.url));
/** A command that has not answered by then has hung: the run fails rather than the whole test file waiting forever. */
const RUN_TIMEOUT_MS = 30_000;

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** The CLI's stdin, which ends after it either way. */
  readonly input?: string;
  /** Extra environment, e.g. other MODELPORT_* settings. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Spawn `node bin/modelport` instead of calling its entry in this process: for what only a process shows (its exit
   * code and real pipes, the working directory).
   */
  readonly process?: boolean;
  /** The child's working directory (process-wide, so only with `process: true`). @default this process's */
  readonly cwd?: string;
}

/**
 * Runs `modelport ...args` against `databaseUrl` with a minimal environment (DATABASE_URL and `options.env`, so the
 * caller's DATABASE_URL or MODELPORT_* cannot leak in), and resolves with the exit code and both streams, whatever the
 * exit code. By default it calls `runCli` from dist/cli-main.js, what bin/modelport calls, in this process: the same
 * parsing, wiring, database and output, without starting Node each time. `process: true` spawns the real executable.
 */
export function runModelport(databaseUrl: string, args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  if (!existsSync(BUILT_ENTRY)) throw new Error(`${BUILT_ENTRY} is missing: run "npm run build" before the CLI tests.`);
  const env: Record<string, string> = { DATABASE_URL: databaseUrl, ...options.env };
  if (options.process === true) return spawnModelport(env, args, options);
  if (options.cwd !== undefined) throw new Error('runModelport: a working directory needs a process of its own ({ process: true }).');
  return callRunCli(env, args, options.input ?? '');
}

/** `node bin/modelport ...args` in a child process with `env` (and PATH), its stdin given `input` and closed. */
function spawnModelport(env: Record<string, string>, args: readonly string[], options: RunOptions): Promise<CliRun> {
  const childEnv = { ...env };
  if (process.env.PATH !== undefined) childEnv.PATH = process.env.PATH;
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [BIN, ...args], { env: childEnv, timeout: RUN_TIMEOUT_MS, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
    child.stdin?.end(options.input ?? '');
  });
}

/** A stream that keeps what is written to it; like a pipe, it asks a large write to wait for 'drain'. */
function collector(): { readonly sink: Writable; text(): string } {
  let text = '';
  const sink = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      done();
    },
  });
  return { sink, text: () => text };
}

/**
 * The CLI's entry in this process. It must leave the process as it found it (the binary's process ends after one
 * command; this one runs hundreds), so a change to the exit code, working directory or environment fails the run.
 */
async function callRunCli(env: Record<string, string>, args: readonly string[], input: string): Promise<CliRun> {
  const { runCli } = (await import(BUILT_ENTRY)) as typeof import('../../src/cli-main.js');
  const stdout = collector();
  const stderr = collector();
  const before = { exitCode: process.exitCode, cwd: process.cwd(), env: JSON.stringify(process.env) };
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`modelport ${args.join(' ')} did not finish in ${RUN_TIMEOUT_MS / 1000} s`)), RUN_TIMEOUT_MS);
  });
  try {
    const code = await Promise.race([runCli(args, { env, stdout: stdout.sink, stderr: stderr.sink, stdin: Readable.from(input === '' ? [] : [Buffer.from(input)]) }), hung]);
    const after = { exitCode: process.exitCode, cwd: process.cwd(), env: JSON.stringify(process.env) };
    for (const name of ['exitCode', 'cwd', 'env'] as const) {
      if (after[name] !== before[name]) throw new Error(`modelport ${args.join(' ')} changed this process's ${name}`);
    }
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    clearTimeout(timer);
  }
}

/** Parses stdout that must be exactly one JSON object. */
export function parseJsonObject(stdout: string): Record<string, unknown> {
  const value: unknown = JSON.parse(stdout);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`expected one JSON object, got: ${stdout}`);
  return value as Record<string, unknown>;
}

/** A fresh SQLite file in its own temporary directory. */
export function createTempDatabase(): { readonly url: string; readonly directory: string; remove(): void } {
  const directory = mkdtempSync(join(tmpdir(), 'modelport-cli-'));
  return { url: join(directory, 'cli.db'), directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** No output of a user mistake may carry a stack trace. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+[:(]/m.test(text);
}

/** The CLI in this process, for commands that touch no database (help texts): its DATABASE_URL is never opened. */
export function runModelportInProcess(args: readonly string[]): Promise<CliRun> {
  return runModelport(join(tmpdir(), 'modelport-unused-by-help.db'), args);
}
