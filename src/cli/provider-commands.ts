import type { ProviderCredentialView } from '../admin/provider-admin.js';
import { UsageError, type CommandSpec } from './command.js';
import { formatNumber, isoTime, renderTable, shortTime, type JsonObject } from './output.js';

/** The JSON shape of an owner's provider credentials: never the key, only its last characters. */
function providerJson(view: ProviderCredentialView, ownerEmail: string): JsonObject {
  return {
    provider: view.provider,
    kind: view.kind,
    owner: ownerEmail,
    baseUrl: view.baseUrl ?? null,
    keyHint: view.keyHint ?? null,
    hasKey: view.hasKey,
    createdAt: isoTime(view.createdAt),
    updatedAt: isoTime(view.updatedAt),
  };
}

function shownKey(view: ProviderCredentialView): string {
  if (!view.hasKey) return 'none';
  return view.keyHint === undefined ? 'set' : `…${view.keyHint}`;
}

const addProvider: CommandSpec = {
  noun: 'provider',
  verb: 'add',
  summary: "Store an owner's own key for a provider (bring your own key)",
  description:
    "Stores an owner's own credentials for a provider; that owner's routers then call the provider with them instead of the server's. For a preset (openai, anthropic, gemini, groq, mistral...) give the key, and optionally a --base-url. Any other name is a custom OpenAI-compatible provider: --base-url is required, the key optional. The key is stored sealed with AES-256-GCM and never shown again (only its last 4 characters). Base URLs that resolve to loopback, private or link-local addresses are refused unless the server allows them (MODELPORT_ALLOW_PRIVATE_UPSTREAMS=true). Adding a provider the owner already has replaces its key and base URL.",
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user whose credentials these are' },
    provider: { type: 'string', valueName: 'name', required: true, description: 'A preset name (openai, anthropic...) or a name for a custom OpenAI-compatible provider' },
    'api-key-stdin': { type: 'boolean', description: 'Read the key from standard input (one trailing newline removed); keeps it out of shell history and ps' },
    'api-key': { type: 'string', valueName: 'key', description: 'The key itself (prefer --api-key-stdin)' },
    'base-url': { type: 'string', valueName: 'url', description: 'http(s) base URL, e.g. https://llm.example.com/v1; required for a custom provider' },
  },
  examples: [
    'printf %s "$OPENAI_KEY" | modelport provider add --owner owner@example.com --provider openai --api-key-stdin',
    'modelport provider add --owner owner@example.com --provider acme --base-url https://llm.acme.example/v1 --api-key-stdin < acme.key',
  ],
  async run(options, context) {
    const given = options.string('api-key');
    const fromStdin = options.boolean('api-key-stdin');
    if (given !== undefined && fromStdin) throw new UsageError('Give the key with --api-key or --api-key-stdin, not both.', 'provider add');
    const apiKey = fromStdin ? (await context.readStdin()).replace(/\r?\n$/, '') : given;
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner').toLowerCase();
    const { credential, replaced } = await admin.addProvider({ ownerEmail, provider: options.requiredString('provider'), apiKey, baseUrl: options.string('base-url') });
    const where = credential.baseUrl === undefined ? '' : ` at ${credential.baseUrl}`;
    return {
      json: { provider: providerJson(credential, ownerEmail), replaced },
      stdout: `${replaced ? 'Replaced' : 'Added'} ${credential.kind} provider ${credential.provider} for ${ownerEmail}${where} (key ${shownKey(credential)}).\n`,
    };
  },
};

const listProviders: CommandSpec = {
  noun: 'provider',
  verb: 'list',
  readsOnly: true,
  summary: "List an owner's own provider credentials (never the keys)",
  description: "Lists the providers an owner brought their own credentials for: the name, whether it is a preset or a custom provider, the owner's base URL (- for the preset's) and the key's last 4 characters. Keys are never shown.",
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user' },
  },
  examples: ['modelport provider list --owner owner@example.com'],
  async run(options, context) {
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner').toLowerCase();
    const views = await admin.listProviders(ownerEmail);
    const table =
      views.length === 0
        ? '(no provider credentials)\n'
        : renderTable(
            ['PROVIDER', 'KIND', 'BASE URL', 'KEY', 'UPDATED'],
            views.map((view) => [view.provider, view.kind, view.baseUrl ?? '-', shownKey(view), shortTime(view.updatedAt)]),
          );
    return { json: { providers: views.map((view) => providerJson(view, ownerEmail)) }, stdout: table };
  },
};

const testProvider: CommandSpec = {
  noun: 'provider',
  verb: 'test',
  readsOnly: true,
  summary: "Make one tiny real call with an owner's credentials",
  description:
    "Checks an owner's credentials with one real call: a chat completion of \"ping\" with max_tokens 1 to --model (default: the provider's cheapest known model), or, for a custom provider without --model, GET <base-url>/models. Prints ok and the latency, or the upstream's error (exit 1). The call may cost a token.",
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user' },
    provider: { type: 'string', valueName: 'name', required: true, description: 'The provider to test' },
    model: { type: 'string', valueName: 'model', description: 'The model name to ping (without the provider prefix)' },
  },
  examples: ['modelport provider test --owner owner@example.com --provider openai', 'modelport provider test --owner owner@example.com --provider acme --model llama-3.3-70b'],
  async run(options, context) {
    const admin = await context.admin();
    const provider = options.requiredString('provider');
    const result = await admin.testProvider({ ownerEmail: options.requiredString('owner'), provider, model: options.string('model') });
    const latency = `${formatNumber(result.latencyMs, 0)} ms`;
    return {
      json: { test: { provider, ok: result.ok, target: result.target, latencyMs: result.latencyMs, statusCode: result.statusCode ?? null, message: result.message } },
      stdout: result.ok ? `ok: ${result.target} ${result.message} in ${latency}.\n` : '',
      ...(result.ok ? {} : { stderr: `error: ${result.target} failed after ${latency}: ${result.message}\n`, exitCode: 1 }),
    };
  },
};

const removeProvider: CommandSpec = {
  noun: 'provider',
  verb: 'remove',
  summary: "Delete an owner's own credentials for a provider",
  description:
    "Deletes an owner's credentials for a provider; their routers fall back to the server's credentials for it (a preset), or skip it (a custom provider, whose declared models are deleted too). Running servers notice within MODELPORT_CHANGE_POLL_MS.",
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user' },
    provider: { type: 'string', valueName: 'name', required: true, description: 'The provider to remove' },
  },
  examples: ['modelport provider remove --owner owner@example.com --provider openai'],
  async run(options, context) {
    const admin = await context.admin();
    const provider = options.requiredString('provider');
    const { modelsRemoved } = await admin.removeProvider(options.requiredString('owner'), provider);
    const models = modelsRemoved === 0 ? '' : ` and its ${modelsRemoved} model${modelsRemoved === 1 ? '' : 's'}`;
    return { json: { removed: { provider, modelsRemoved } }, stdout: `Removed provider ${provider}${models}.\n` };
  },
};

export const providerCommands: readonly CommandSpec[] = [addProvider, listProviders, testProvider, removeProvider];
