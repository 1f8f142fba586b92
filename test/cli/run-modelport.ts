import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real executable, as operators run it. */
export const BIN = fileURLToPath(new URL('../../bin/modelport', import.meta.url));
const BUILT_ENTRY = fileURLToPath(new URL('../../dist/cli-main.js', import.meta.url));

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** Written to the child's stdin (which is closed either way). */
  readonly input?: string;
  /** Extra environment, e.g. other MODELPORT_* settings. */
  readonly env?: Readonly<Record<string, string>>;
  /** The child's working directory. @default this process's */
  readonly cwd?: string;
}

/**
 * Runs `node bin/modelport ...args` against `databaseUrl` with a minimal
 * environment (so the caller's DATABASE_URL or MODELPORT_* cannot leak in),
 * and resolves with the exit code and both streams, whatever the exit code.
 */
export function runModelport(databaseUrl: string, args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  if (!existsSync(BUILT_ENTRY)) throw new Error(`${BUILT_ENTRY} is missing: run "npm run build" before the CLI tests.`);
  const env: Record<string, string> = { DATABASE_URL: databaseUrl, ...options.env };
  if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [BIN, ...args], { env, timeout: 30_000, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
    child.stdin?.end(options.input ?? '');
  });
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

/**
 * Runs the CLI's own entry (`runCli` from dist/, what bin/modelport calls) in
 * this process: the same parsing, commands and output, without the cost of
 * starting a Node process. For tests that run many commands that touch no
 * database (help texts); everything else goes through the real executable.
 */
export async function runModelportInProcess(args: readonly string[]): Promise<CliRun> {
  if (!existsSync(BUILT_ENTRY)) throw new Error(`${BUILT_ENTRY} is missing: run "npm run build" before the CLI tests.`);
  const { runCli } = (await import(BUILT_ENTRY)) as typeof import('../../src/cli-main.js');
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { DATABASE_URL: join(tmpdir(), 'modelport-unused-by-help.db') },
    stdout: { write: (text: string) => ((stdout += text), true) },
    stderr: { write: (text: string) => ((stderr += text), true) },
    stdin: (async function* () {})(),
  });
  return { code, stdout, stderr };
}
