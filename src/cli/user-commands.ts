import { AdminInputError } from '../admin/admin-service.js';
import { createPasswordRules, emailWords, MIN_PASSWORD_LENGTH } from '../dashboard/password-rules.js';
import { GatewayError } from '../lib/errors.js';
import { UsageError, type CommandSpec } from './command.js';
import { isoTime } from './output.js';

const createUser: CommandSpec = {
  noun: 'user',
  verb: 'create',
  summary: 'Create a user who can own routers and keys',
  description:
    `Creates a user. The password follows the dashboard's rules (at least ${MIN_PASSWORD_LENGTH} characters, not easy to guess, not containing the email) and is stored only as a salted scrypt hash. Prefer --password-stdin, so the password stays out of the shell history and the process list.`,
  options: {
    email: { type: 'string', valueName: 'email', required: true, description: 'The user\'s email address (their identity in every other command)' },
    password: { type: 'string', valueName: 'password', description: `At least ${MIN_PASSWORD_LENGTH} characters, hard to guess: a phrase of unrelated words works well` },
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
    const email = options.requiredString('email');
    await checkPassword(password, email);
    const admin = await context.admin();
    const user = await admin.createUser(email, password);
    return {
      json: { user: { id: user.id, email: user.email, createdAt: isoTime(user.created_at) } },
      stdout: `Created user ${user.email} (${user.id}).\n`,
    };
  },
};

/** The dashboard's password rules (sign-up), so an account is held to one rule whoever creates it. */
async function checkPassword(password: string, email: string): Promise<void> {
  try {
    await createPasswordRules().check(password, emailWords(email.trim().toLowerCase()));
  } catch (error) {
    throw error instanceof GatewayError ? new AdminInputError(error.message) : error;
  }
}

export const userCommands: readonly CommandSpec[] = [createUser];
