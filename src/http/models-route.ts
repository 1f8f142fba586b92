import type { FastifyInstance } from 'fastify';
import { routerKind } from '../catalog/router-kind.js';
import { dismissCall } from '../pipeline/call-settlement.js';
import type { AppDependencies } from './dependencies.js';

/**
 * GET /api/router/models (and /v1/models): the routers and agents (`agent:<name>`) the
 * calling key may use, in OpenAI's list shape, so clients that list models work. `kind`
 * says which endpoint each serves: `chat` (chat completions, agents) or `embedding`.
 * Listing is not a routed call: it counts against the key's rate limits but leaves no usage
 * record, so usage totals and their breakdown by router count the same calls.
 */
export function registerModels(app: FastifyInstance, deps: AppDependencies): void {
  const handler = async (request: import('fastify').FastifyRequest) => {
    dismissCall(request.gateway);
    const key = request.gateway.key;
    if (key === undefined) return { object: 'list', data: [] };
    const [routers, catalog] = await Promise.all([deps.routers.listByOwner(key.ownerId), deps.ownerCatalogs.forOwner(key.ownerId)]);
    const allowed = key.routerIds === undefined ? routers : routers.filter((router) => key.routerIds?.includes(router.id));
    // The agents this key may run, as /api/v1/agents lists them for it.
    const agents = deps.agents === undefined ? [] : await deps.agents.forKey(key.ownerId, key).list();
    return {
      object: 'list',
      data: [
        ...allowed.map((router) => ({
          id: router.id,
          object: 'model',
          created: Math.floor(router.createdAt / 1000),
          owned_by: 'modelport',
          name: router.name,
          kind: routerKind(router.models, catalog),
          strategy: router.strategy,
        })),
        ...agents.map((agent) => ({ id: `agent:${agent.name}`, object: 'model', created: Math.floor(agent.createdAt / 1000), owned_by: 'modelport', name: agent.name, kind: 'chat', description: agent.description })),
      ],
    };
  };
  app.get('/api/router/models', handler);
  app.get('/api/router/v1/models', handler);
}
