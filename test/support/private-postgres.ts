import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A Postgres cluster of a test's own (never the machine's shared one), which the test may stop and start. */
export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:PORT/modelport */
  readonly url: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

function binDirectory(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).filter((entry) => existsSync(join(root, entry, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))[0];
  return version === undefined ? undefined : join(root, version, 'bin');
}

/** Why a private cluster cannot be made here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  return binDirectory() === undefined ? 'initdb not found under /usr/lib/postgresql/*/bin (install postgresql to run this test)' : undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** initdb in a temporary directory, started on a free loopback port, with a `modelport` database. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDirectory();
  if (bin === undefined) throw new Error(privatePostgresUnavailable());
  const directory = mkdtempSync(join(tmpdir(), 'modelport-pg-'));
  const data = join(directory, 'data');
  // Postgres refuses to run as root: run its tools as the postgres user then.
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
    chownSync(directory, Number(ids), Number(gid));
  }
  const run = (tool: string, args: readonly string[]) =>
    execFileSync(asRoot ? 'runuser' : join(bin, tool), asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : [...args], { stdio: 'pipe' });
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(directory, 'server.log'), '-w', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('create database modelport');
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/modelport`,
    stop,
    start,
    destroy() {
      try {
        stop();
      } catch {
        // Already stopped.
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
