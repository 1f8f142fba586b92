import { parseDuration, parseWholeNumber } from '../admin/admin-service.js';
import { keyState } from '../auth/key-state.js';
import { describeBudget, parseBudgetFlags } from '../admin/budget-admin.js';
import type { BudgetRecord } from '../storage/budgets-repository.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import { splitList, type CommandSpec } from './command.js';
import { isoTime, renderTable, shortTime, type JsonObject } from './output.js';

/**
 * The JSON shape of a key in every command's output. It has no hash and no
 * value: the value exists only in `key create`'s output.
 */
export function keyJson(key: ApiKeyRecord, ownerEmail: string, now: number): JsonObject {
  return {
    id: key.id,
    name: key.name,
    owner: ownerEmail,
    displayPrefix: key.displayPrefix,
    routers: key.routerIds ?? null,
    rpm: key.rpmLimit ?? null,
    tpm: key.tpmLimit ?? null,
    maxConcurrency: key.maxConcurrency ?? null,
    createdAt: isoTime(key.createdAt),
    lastUsedAt: isoTime(key.lastUsedAt),
    expiresAt: isoTime(key.expiresAt),
    revokedAt: isoTime(key.revokedAt),
    status: keyState(key, now),
  };
}

function describeScope(key: ApiKeyRecord): string {
  const routers = key.routerIds === undefined ? 'every router of its owner' : `routers ${key.routerIds.join(', ')}`;
  const rpm =
    (key.rpmLimit === undefined ? 'the server default rpm' : `${key.rpmLimit} requests/minute`) +
    (key.tpmLimit === undefined ? '' : `, ${key.tpmLimit} tokens/minute`) +
    (key.maxConcurrency === undefined ? '' : `, at most ${key.maxConcurrency} in flight`);
  const expires = key.expiresAt === undefined ? 'never expires' : `expires ${shortTime(key.expiresAt)}`;
  return `${routers}; ${rpm}; ${expires}`;
}

const createKey: CommandSpec = {
  noun: 'key',
  verb: 'create',
  summary: 'Create an API key and print it (once)',
  description:
    'Creates an API key (mp_...) and prints it on stdout. Only its SHA-256 hash is stored, so this is the only time the key can be seen: store it now. Without --routers the key opens every router of its owner; without --rpm the server default limit (MODELPORT_DEFAULT_RPM) applies.',
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user who owns the key' },
    name: { type: 'string', valueName: 'name', required: true, description: 'What the key is for, e.g. "staging backend"' },
    routers: { type: 'string', valueName: 'id,id', description: 'Only these routers of the owner (comma-separated router ids)' },
    rpm: { type: 'string', valueName: 'n', description: 'Requests per minute allowed with this key (any 60 s window)' },
    tpm: { type: 'string', valueName: 'n', description: 'Tokens per minute allowed with this key (prompt + max_tokens before the call, real usage after)' },
    'max-concurrency': { type: 'string', valueName: 'n', description: 'Requests in flight at once with this key; default no cap' },
    'expires-in': { type: 'string', valueName: 'duration', description: 'Lifetime such as 90d, 12h, 30m or 45s; default never' },
    'budget-usd': { type: 'string', valueName: 'usd', description: 'Spend cap in USD per --budget-period; over it requests get 429 insufficient_quota' },
    'budget-period': { type: 'string', valueName: 'day|month', description: 'UTC calendar day or month the budget covers (default month)' },
  },
  examples: [
    'modelport key create --owner owner@example.com --name "staging backend"',
    'modelport key create --owner owner@example.com --name ci --routers rt_AbC...,rt_XyZ... --rpm 60 --expires-in 90d',
    'modelport key create --owner owner@example.com --name batch --rpm 30 --tpm 40000 --max-concurrency 4',
  ],
  async run(options, context) {
    const routersText = options.string('routers');
    const rpmText = options.string('rpm');
    const tpmText = options.string('tpm');
    const concurrencyText = options.string('max-concurrency');
    const expiresText = options.string('expires-in');
    const budget = parseBudgetFlags(options.string('budget-usd'), options.string('budget-period'));
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner');
    const { key, value } = await admin.createKey({
      ownerEmail,
      name: options.requiredString('name'),
      routerIds: routersText === undefined ? undefined : splitList(routersText),
      rpmLimit: rpmText === undefined ? undefined : parseWholeNumber(rpmText, '--rpm'),
      tpmLimit: tpmText === undefined ? undefined : parseWholeNumber(tpmText, '--tpm'),
      maxConcurrency: concurrencyText === undefined ? undefined : parseWholeNumber(concurrencyText, '--max-concurrency'),
      expiresInMs: expiresText === undefined ? undefined : parseDuration(expiresText),
    });
    const budgetSet: BudgetRecord | undefined = budget?.amountUsd == null ? undefined : await admin.setBudget(ownerEmail, 'key', key.id, budget);
    return {
      json: { key: { ...keyJson(key, ownerEmail.toLowerCase(), context.now()), budget: budgetSet === undefined ? null : { usd: budgetSet.amountUsd, period: budgetSet.period } }, value },
      stdout: `${value}\n`,
      stderr:
        `Created key ${key.id} "${key.name}" for ${ownerEmail}: ${describeScope(key)}; ${describeBudget(budgetSet)}.\n` +
        'WARNING: this is the only time the key is shown; it cannot be shown again. Store it now.\n',
    };
  },
};

const listKeys: CommandSpec = {
  noun: 'key',
  verb: 'list',
  readsOnly: true,
  summary: "List a user's API keys (never the keys themselves)",
  description:
    'Lists the keys of one user, oldest first, with their status: active, revoked or expired. Only the display prefix of each key is shown; neither the key nor its hash can be listed.',
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user whose keys to list' },
  },
  examples: ['modelport key list --owner owner@example.com', 'modelport key list --owner owner@example.com --json'],
  async run(options, context) {
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner').toLowerCase();
    const keys = await admin.listKeys(ownerEmail);
    const now = context.now();
    const table =
      keys.length === 0
        ? '(no keys)\n'
        : renderTable(
            ['ID', 'NAME', 'PREFIX', 'ROUTERS', 'RPM', 'CREATED', 'LAST USED', 'EXPIRES', 'STATUS'],
            keys.map((key) => [
              key.id,
              key.name,
              `${key.displayPrefix}…`,
              key.routerIds?.join(',') ?? 'all',
              key.rpmLimit === undefined ? 'default' : String(key.rpmLimit),
              shortTime(key.createdAt),
              shortTime(key.lastUsedAt),
              key.expiresAt === undefined ? 'never' : shortTime(key.expiresAt),
              keyState(key, now),
            ]),
          );
    return { json: { keys: keys.map((key) => keyJson(key, ownerEmail, now)) }, stdout: table };
  },
};

const revokeKey: CommandSpec = {
  noun: 'key',
  verb: 'revoke',
  summary: 'Revoke an API key at once',
  description:
    'Revokes a key. Running servers see the change through the database change counter and refuse the key with 401 within their poll interval (MODELPORT_CHANGE_POLL_MS, 250 ms by default). Revoking cannot be undone.',
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user who owns the key' },
    id: { type: 'string', valueName: 'key-id', required: true, description: 'The key id (key_..., from "key list"), not the key itself' },
  },
  examples: ['modelport key revoke --owner owner@example.com --id key_AbCdEfGh12345678'],
  async run(options, context) {
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner').toLowerCase();
    const id = options.requiredString('id');
    await admin.revokeKey(ownerEmail, id);
    const key = (await admin.listKeys(ownerEmail)).find((candidate) => candidate.id === id);
    return {
      json: key === undefined ? { key: { id, status: 'revoked' } } : { key: keyJson(key, ownerEmail, context.now()) },
      stdout: `Revoked key ${id}${key === undefined ? '' : ` "${key.name}"`}.\n`,
    };
  },
};

export const keyCommands: readonly CommandSpec[] = [createKey, listKeys, revokeKey];
