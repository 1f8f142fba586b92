import type { RouterWithOwner } from '../admin/admin-service.js';
import { STRATEGY_NAMES } from '../routing/strategies.js';
import { splitList, type CommandSpec } from './command.js';
import { isoTime, renderTable, shortTime, type JsonObject } from './output.js';

/** The JSON shape of a router in every command's output. */
export function routerJson({ router, ownerEmail }: RouterWithOwner): JsonObject {
  return {
    id: router.id,
    name: router.name,
    owner: ownerEmail,
    strategy: router.strategy,
    models: router.models,
    createdAt: isoTime(router.createdAt),
    updatedAt: isoTime(router.updatedAt),
  };
}

const createRouter: CommandSpec = {
  noun: 'router',
  verb: 'create',
  summary: 'Create a router and print its id',
  description:
    'Creates a router over the given models (provider:model ids from "modelport models list", in order of preference) with an optimization strategy, and prints its id: the value clients send as "model". The id is random and unguessable.',
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user who owns the router' },
    name: { type: 'string', valueName: 'name', required: true, description: 'A name for people to recognise it' },
    models: { type: 'string', valueName: 'p:m,p:m', required: true, description: 'Comma-separated provider:model ids' },
    strategy: { type: 'string', valueName: 'strategy', required: true, description: `One of ${STRATEGY_NAMES.join(', ')}` },
  },
  examples: ['modelport router create --owner owner@example.com --name support-bot --models sim:small,sim:medium --strategy cost_optimized'],
  async run(options, context) {
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner');
    const router = await admin.createRouter({
      ownerEmail,
      name: options.requiredString('name'),
      models: splitList(options.requiredString('models')),
      strategy: options.requiredString('strategy'),
    });
    return {
      json: { router: routerJson({ router, ownerEmail: ownerEmail.toLowerCase() }) },
      stdout: `${router.id}\n`,
      stderr: `Created router "${router.name}" for ${ownerEmail}: ${router.strategy} over ${router.models.join(', ')}.\n`,
    };
  },
};

const listRouters: CommandSpec = {
  noun: 'router',
  verb: 'list',
  summary: 'List routers, of one owner or of everyone',
  description: 'Lists routers (deleted ones are left out), oldest first.',
  options: {
    owner: { type: 'string', valueName: 'email', description: 'Only the routers of this user' },
  },
  examples: ['modelport router list', 'modelport router list --owner owner@example.com --json'],
  async run(options, context) {
    const admin = await context.admin();
    const routers = await admin.listRoutersWithOwners(options.string('owner'));
    const table =
      routers.length === 0
        ? '(no routers)\n'
        : renderTable(
            ['ID', 'NAME', 'OWNER', 'STRATEGY', 'MODELS', 'CREATED'],
            routers.map(({ router, ownerEmail }) => [router.id, router.name, ownerEmail, router.strategy, router.models.join(','), shortTime(router.createdAt)]),
          );
    return { json: { routers: routers.map(routerJson) }, stdout: table };
  },
};

export const routerCommands: readonly CommandSpec[] = [createRouter, listRouters];
