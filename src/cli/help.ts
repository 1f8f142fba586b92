import type { CommandSpec, OptionSpec } from './command.js';

/** Options every command accepts, besides its own. */
export const COMMON_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  json: { type: 'boolean', description: 'Print exactly one JSON object on stdout instead of human output' },
  help: { type: 'boolean', description: 'Show this help' },
};

const FOOTER = [
  'The database is DATABASE_URL, as for the server: a SQLite file path (a relative one is taken from the',
  'current directory) or postgres://user:password@host:5432/db. Unset, it is data/modelport.db in the',
  "ModelPort package's folder, the server's default, wherever you run the command. Human output names it",
  'on stderr ("database: ..."); commands that only read refuse a SQLite file that does not exist.',
  'Changes reach running servers within their MODELPORT_CHANGE_POLL_MS.',
  '',
  'Exit codes: 0 done, 1 refused input (unknown owner, bad strategy...) or failure, 2 usage mistake.',
].join('\n');

function optionLabel(name: string, option: OptionSpec): string {
  const flag = name === 'help' ? '-h, --help' : `--${name}`;
  return option.type === 'string' ? `${flag} <${option.valueName ?? 'value'}>` : flag;
}

function synopsis(command: CommandSpec): string {
  const parts = Object.entries(command.options).map(([name, option]) => {
    const label = optionLabel(name, option);
    return option.required === true ? label : `[${label}]`;
  });
  const positional = command.positional === undefined ? [] : [`<${command.positional.valueName}>`];
  return ['modelport', command.noun, command.verb, ...positional, ...parts, '[--json]'].join(' ');
}

function commandLines(commands: readonly CommandSpec[]): string[] {
  const width = Math.max(...commands.map((command) => `${command.noun} ${command.verb}`.length));
  return commands.map((command) => `  ${`${command.noun} ${command.verb}`.padEnd(width)}   ${command.summary}`);
}

/** `modelport --help`: every command. */
export function renderOverview(commands: readonly CommandSpec[]): string {
  return [
    'modelport: manage ModelPort users, routers, API keys and owners\' own provider keys and models, and read usage, straight in the database.',
    '"eval routing" scores the auto strategy offline and opens no database.',
    '',
    'Usage: modelport <noun> <verb> [options]',
    '',
    'Commands:',
    ...commandLines(commands),
    '',
    'Options for every command:',
    '  --json       Print exactly one JSON object on stdout instead of human output',
    '  -h, --help   Show help: "modelport <noun> --help", "modelport <noun> <verb> --help"',
    '',
    FOOTER,
    '',
  ].join('\n');
}

/** `modelport router --help`: the verbs of one noun. */
export function renderNounHelp(noun: string, commands: readonly CommandSpec[]): string {
  return [
    `Usage: modelport ${noun} <verb> [options]`,
    '',
    'Commands:',
    ...commandLines(commands),
    '',
    `Run "modelport ${noun} <verb> --help" for the options of each.`,
    '',
  ].join('\n');
}

/** `modelport router create --help`: synopsis, description, options, examples. */
export function renderCommandHelp(command: CommandSpec): string {
  const options = Object.entries({ ...command.options, ...COMMON_OPTIONS });
  const labels = options.map(([name, option]) => optionLabel(name, option));
  const width = Math.max(...labels.map((label) => label.length));
  return [
    `Usage: ${synopsis(command)}`,
    '',
    command.description,
    '',
    'Options:',
    ...options.map(([, option], index) => `  ${(labels[index] ?? '').padEnd(width)}   ${option.required === true ? '(required) ' : ''}${option.description}`),
    '',
    'Examples:',
    ...command.examples.map((example) => `  ${example}`),
    '',
    FOOTER,
    '',
  ].join('\n');
}
