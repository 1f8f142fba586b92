import { EventEmitter, once } from 'node:events';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AdminInputError, type AdminService } from '../admin/admin-service.js';
import type { Storage } from '../storage/database.js';
import { InvalidConfigurationError, UsageError, type CommandContext, type CommandSpec, type InProcessGateway, type OptionValues } from './command.js';
import { agentCommands } from './agent-commands.js';
import { evalCommands } from './eval-commands.js';
import { feedbackCommands } from './feedback-commands.js';
import { COMMON_OPTIONS, renderCommandHelp, renderNounHelp, renderOverview } from './help.js';
import { keyCommands } from './key-commands.js';
import { modelCommands } from './model-commands.js';
import { modelsCommands } from './models-commands.js';
import { errorJson, formatJson, type TextSink } from './output.js';
import { providerCommands } from './provider-commands.js';
import { routerCommands } from './router-commands.js';
import { usageCommands } from './usage-commands.js';
import { userCommands } from './user-commands.js';

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  ...userCommands,
  ...routerCommands,
  ...keyCommands,
  ...providerCommands,
  ...modelCommands,
  ...modelsCommands,
  ...usageCommands,
  ...feedbackCommands,
  ...agentCommands,
  ...evalCommands,
];

/** Nouns that do something useful without a verb (`modelport models`, `modelport feedback <request-id>`). */
const DEFAULT_VERBS: Readonly<Record<string, string>> = { models: 'list', feedback: 'add' };

export const EXIT_OK = 0;
/** Refused input (AdminInputError), bad configuration or a failure such as an unreachable database. */
export const EXIT_FAILURE = 1;
/** The command line itself is wrong: unknown noun, verb or flag, missing required flag. */
export const EXIT_USAGE = 2;

/** What the CLI touches outside itself, so it can be driven in-process as well as from bin/modelport. */
export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly stdin: AsyncIterable<string | Uint8Array>;
}

/**
 * What the commands need built from the environment, given by the app layer (src/cli-main.ts), which
 * loads the config, the database drivers and the gateway only when a command first asks for them.
 */
export interface CliWiring {
  /**
   * Opens DATABASE_URL the way the server does, migrates it, and builds the admin service over it; `onOpened` gets the
   * storage to close and the database's name for people (a SQLite file's absolute path, a Postgres URL without its
   * password). With `mustExist`, a SQLite file that does not exist is an error rather than created empty.
   */
  openAdmin(env: CliIo['env'], onOpened: (storage: Storage, database: string) => void, options: { readonly mustExist: boolean }): Promise<AdminService>;
  /** Builds the whole gateway in-process (`agent run`). */
  openGateway(env: CliIo['env']): Promise<InProcessGateway>;
}

type Resolved =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'command'; readonly command: CommandSpec; readonly args: readonly string[] };

const isHelpFlag = (arg: string) => arg === '--help' || arg === '-h';

/** Finds the command named by the leading `<noun> <verb>` words, or the help text asked for. */
function resolve(argv: readonly string[]): Resolved {
  const first = argv[0];
  if (first === undefined) throw new UsageError('Missing command.');
  if (first === 'help' || isHelpFlag(first)) {
    const words = argv.slice(1).filter((arg) => !isHelpFlag(arg));
    if (words.length === 0) return { kind: 'help', text: renderOverview(COMMANDS) };
    const inner = resolve([...words, '--help']);
    return inner.kind === 'help' ? inner : { kind: 'help', text: renderCommandHelp(inner.command) };
  }
  if (first.startsWith('-')) throw new UsageError(`Options go after the command: "modelport <noun> <verb> ${first}".`);
  const commands = COMMANDS.filter((command) => command.noun === first);
  const nouns = [...new Set(COMMANDS.map((command) => command.noun))];
  if (commands.length === 0) throw new UsageError(`Unknown command "${first}". Commands: ${nouns.join(', ')}.`);
  const verbs = commands.map((command) => command.verb).join(', ');

  const second = argv[1];
  if (second === undefined || second.startsWith('-')) {
    const rest = argv.slice(1);
    if (rest.some(isHelpFlag)) return { kind: 'help', text: renderNounHelp(first, commands) };
    const fallback = commands.find((command) => command.verb === DEFAULT_VERBS[first]);
    if (fallback !== undefined) return { kind: 'command', command: fallback, args: rest };
    throw new UsageError(`"modelport ${first}" needs a verb: ${verbs}.`, first);
  }
  const command = commands.find((candidate) => candidate.verb === second);
  if (command === undefined) {
    // A word that is no verb is the default command's positional argument (`modelport feedback req_...`).
    const fallback = commands.find((candidate) => candidate.verb === DEFAULT_VERBS[first] && candidate.positional !== undefined);
    if (fallback !== undefined) {
      const rest = argv.slice(1);
      return rest.some(isHelpFlag) ? { kind: 'help', text: renderCommandHelp(fallback) } : { kind: 'command', command: fallback, args: rest };
    }
    throw new UsageError(`Unknown command "${first} ${second}". "${first}" has: ${verbs}.`, first);
  }
  const args = argv.slice(2);
  if (args.some(isHelpFlag)) return { kind: 'help', text: renderCommandHelp(command) };
  return { kind: 'command', command, args };
}

/** Rewords node:util parseArgs errors, whose default text suggests `--` tricks that do not apply here. */
function parseOptions(command: CommandSpec, args: readonly string[]): { values: OptionValues; json: boolean } {
  const name = `${command.noun} ${command.verb}`;
  const declared = { ...command.options, ...COMMON_OPTIONS };
  const config: NonNullable<ParseArgsConfig['options']> = {};
  for (const [option, spec] of Object.entries(declared)) config[option] = option === 'help' ? { type: spec.type, short: 'h' } : { type: spec.type };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...args], options: config, strict: true, allowPositionals: command.positional !== undefined });
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    const quoted = error instanceof Error ? /'([^']+)'/.exec(error.message)?.[1] : undefined;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`Unknown option ${quoted ?? ''} for "${name}".`, name);
    if (error instanceof Error && / argument missing$/.test(error.message)) throw new UsageError(`Option ${quoted?.split(' ')[0] ?? ''} needs a value.`, name);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new UsageError(`Unexpected argument "${quoted ?? ''}": "${name}" takes only --options.`, name);
    throw new UsageError(error instanceof Error ? error.message : String(error), name);
  }
  const values = parsed.values;
  for (const [option, spec] of Object.entries(command.options)) {
    if (spec.required === true && values[option] === undefined) throw new UsageError(`Missing required option --${option} for "${name}".`, name);
  }
  const reader: OptionValues = {
    string: (option) => {
      const value = values[option];
      return typeof value === 'string' ? value : undefined;
    },
    requiredString: (option) => {
      const value = values[option];
      if (typeof value !== 'string') throw new UsageError(`Missing required option --${option} for "${name}".`, name);
      return value;
    },
    boolean: (option) => values[option] === true,
    positional: () => parsed.positionals[0],
  };
  if (parsed.positionals.length > 1) throw new UsageError(`Unexpected argument "${parsed.positionals[1] ?? ''}": "${name}" takes one ${command.positional?.valueName ?? 'argument'}.`, name);
  return { values: reader, json: values.json === true };
}

/** Writes each chunk once the sink has taken the one before (a pipe to a slow reader holds no more than it buffers). */
async function writeChunks(sink: TextSink, chunks: AsyncIterable<string>): Promise<void> {
  for await (const chunk of chunks) {
    if (sink.write(chunk) === false && sink instanceof EventEmitter) await once(sink, 'drain');
  }
}

/** The message of an unexpected error, without its stack (an unreachable database often has an empty message). */
function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return [...new Set(error.errors.map(describeError))].join('; ');
  if (error instanceof Error) {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
    return error.message !== '' ? error.message : (code ?? error.name);
  }
  return String(error);
}

/**
 * Runs one `modelport <noun> <verb> [options]` invocation and returns its exit
 * code. The database is opened only by commands that need it and always closed.
 */
export async function runCommandLine(argv: readonly string[], io: CliIo, wiring: CliWiring): Promise<number> {
  let json = argv.includes('--json');
  let storage: Storage | undefined;
  let admin: Promise<AdminService> | undefined;
  let running: CommandSpec | undefined;
  const context: CommandContext = {
    admin() {
      admin ??= wiring.openAdmin(
        io.env,
        (opened, database) => {
          storage = opened;
          // Which database a command read or changed is the first thing to check when its answer surprises.
          if (!json) io.stderr.write(`database: ${database}\n`);
        },
        { mustExist: running?.readsOnly === true },
      );
      return admin;
    },
    now: () => Date.now(),
    env: io.env,
    gateway: () => wiring.openGateway(io.env),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
      return Buffer.concat(chunks).toString('utf8');
    },
  };

  const fail = (message: string, type: string, code: string, hint?: string): void => {
    if (json) io.stdout.write(formatJson(errorJson(message, type, code)));
    else io.stderr.write(`error: ${message}\n${hint === undefined ? '' : `${hint}\n`}`);
  };

  try {
    if (argv.length === 0) {
      io.stderr.write(renderOverview(COMMANDS));
      return EXIT_USAGE;
    }
    const resolved = resolve(argv);
    if (resolved.kind === 'help') {
      io.stdout.write(resolved.text);
      return EXIT_OK;
    }
    const parsed = parseOptions(resolved.command, resolved.args);
    json = parsed.json;
    running = resolved.command;
    const result = await resolved.command.run(parsed.values, context);
    if (result.body !== undefined) await writeChunks(io.stdout, result.body);
    else if (json) io.stdout.write(formatJson(result.json));
    else {
      io.stdout.write(result.stdout);
      if (result.stderr !== undefined) io.stderr.write(result.stderr);
    }
    return result.exitCode ?? EXIT_OK;
  } catch (error) {
    if (error instanceof UsageError) {
      fail(error.message, 'usage_error', 'invalid_usage', `Run "modelport ${error.command === '' ? '' : `${error.command} `}--help" for usage.`);
      return EXIT_USAGE;
    }
    if (error instanceof AdminInputError) fail(error.message, 'invalid_request_error', 'invalid_input');
    else if (error instanceof InvalidConfigurationError) fail(error.message, 'configuration_error', 'invalid_configuration');
    else fail(describeError(error), 'api_error', 'internal_error');
    return EXIT_FAILURE;
  } finally {
    if (storage !== undefined) await storage.close().catch(() => undefined);
  }
}
