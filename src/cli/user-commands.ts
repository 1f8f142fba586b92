import { UsageError, type CommandSpec } from './command.js';
import { isoTime } from './output.js';

const createUser: CommandSpec = {
  noun: 'user',
  verb: 'create',
  summary: 'Create a user who can own routers and keys',
  description:
    'Creates a user. The password is stored only as a salted scrypt hash. Prefer --password-stdin, so the password stays out of the shell history and the process list.',
  options: {
    email: { type: 'string', valueName: 'email', required: true, description: 'The user\'s email address (their identity in every other command)' },
    password: { type: 'string', valueName: 'password', description: 'At least 8 characters' },
    'password-stdin': { type: 'boolean', description: 'Read the password from standard input instead (trailing newline removed)' },
  },
  examples: [
    'modelport user create --email owner@example.com --password "correct horse battery"',
    'printf %s "$OWNER_PASSWORD" | modelport user create --email owner@example.com --password-stdin',
  ],
  async run(options, context) {
    const given = options.string('password');
    const fromStdin = options.boolean('password-stdin');
    if (given !== undefined && fromStdin) throw new UsageError('Give the password with --password or --password-stdin, not both.', 'user create');
    if (given === undefined && !fromStdin) throw new UsageError('Missing the password: pass --password <password> or --password-stdin.', 'user create');
    const password = given ?? (await context.readStdin()).replace(/\r?\n$/, '');
    const admin = await context.admin();
    const user = await admin.createUser(options.requiredString('email'), password);
    return {
      json: { user: { id: user.id, email: user.email, createdAt: isoTime(user.created_at) } },
      stdout: `Created user ${user.email} (${user.id}).\n`,
    };
  },
};

export const userCommands: readonly CommandSpec[] = [createUser];
