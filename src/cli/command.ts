import type { AdminService } from '../admin/admin-service.js';
import type { AgentService } from '../agents/agent-service.js';
import type { UsersRepository } from '../storage/users-repository.js';
import type { JsonObject } from './output.js';

/** A mistake in how the command was typed (unknown flag, missing option): exit code 2. */
export class UsageError extends Error {
  /** The command whose help to point at, e.g. `router create`; empty for the top level. */
  readonly command: string;

  constructor(message: string, command = '') {
    super(message);
    this.name = 'UsageError';
    this.command = command;
  }
}

/** DATABASE_URL or another setting is invalid (config.ts's ConfigError, caught where the config is loaded). */
export class InvalidConfigurationError extends Error {}

/** The whole gateway built in-process from the environment (`agent run`); the caller closes it. */
export interface InProcessGateway {
  readonly repositories: { readonly users: Pick<UsersRepository, 'findByEmail'> };
  readonly agents: AgentService;
  close(): Promise<void>;
}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** One line for `--help`. */
  readonly description: string;
  /** Placeholder shown in help, e.g. `email` for `--owner <email>`. */
  readonly valueName?: string;
  /** Missing required options are a usage mistake (exit 2), checked before the command runs. */
  readonly required?: boolean;
}

/** The parsed options of one invocation, read by name. */
export interface OptionValues {
  string(name: string): string | undefined;
  /** A string option declared `required`; main has already checked that it is present. */
  requiredString(name: string): string;
  boolean(name: string): boolean;
  /** The command's positional argument (`agent show NAME`), when it declares one. */
  positional(): string | undefined;
}

export interface CommandContext {
  /** Opens DATABASE_URL and migrates it on first call; main closes it before exiting. */
  admin(): Promise<AdminService>;
  now(): number;
  /** The whole of standard input, for secrets that should not be on the command line. */
  readStdin(): Promise<string>;
  /** The environment the CLI was started with. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Builds the gateway in-process from the same environment as the server (`agent run`). */
  gateway(): Promise<InProcessGateway>;
}

export interface CommandResult {
  /** What `--json` prints: exactly one object. */
  readonly json: JsonObject;
  /** Human output: data on stdout (what a script captures), notes and warnings on stderr. */
  readonly stdout: string;
  readonly stderr?: string;
  /**
   * Output too large to hold (`usage export`): written to stdout chunk by chunk, at the pace stdout takes it, in place
   * of `stdout`, `stderr` and `json`.
   */
  readonly body?: AsyncIterable<string>;
  /** The exit code when the command ran but its check failed (e.g. `provider test`). @default 0 */
  readonly exitCode?: number;
}

export interface CommandSpec {
  readonly noun: string;
  readonly verb: string;
  /** One line for the command list. */
  readonly summary: string;
  /** A paragraph for the command's own `--help`. */
  readonly description: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** One positional argument after the verb (`agent show NAME`); without it, positionals are refused. */
  readonly positional?: { readonly valueName: string; readonly description: string };
  /** Only reads the database: a SQLite file that does not exist is an error (exit 1), never created empty. */
  readonly readsOnly?: boolean;
  readonly examples: readonly string[];
  run(options: OptionValues, context: CommandContext): Promise<CommandResult>;
}

/** Splits `a,b, c` into trimmed, non-empty items. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
