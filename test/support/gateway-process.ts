import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** A gateway server process (src/main.ts under tsx) on a free loopback port. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly baseUrl: string;
  /** Everything it wrote so far (JSON log lines). */
  output(): string;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `src/main.ts` with the environment given (DATABASE_URL at least) and
 * waits until it listens. Runs the TypeScript sources, so it tests exactly the
 * working tree without needing a build.
 */
export async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', MODELPORT_BOOTSTRAP: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${output}`)), 30_000);
    const look = () => {
      const match = /listening at https?:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}: ${output}`));
    });
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  return {
    child,
    port,
    baseUrl: `http://127.0.0.1:${port}/api/router`,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await exited;
      return code;
    },
  };
}
