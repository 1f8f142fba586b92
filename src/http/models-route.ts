import type { FastifyInstance } from 'fastify';
import type { AppDependencies } from './dependencies.js';

/**
 * GET /api/router/models (and /v1/models): the routers (and, later, agents) the
 * calling key may use, in OpenAI's list shape, so clients that list models work.
 */
export function registerModels(app: FastifyInstance, deps: AppDependencies): void {
  const handler = async (request: import('fastify').FastifyRequest) => {
    const key = request.gateway.key;
    if (key === undefined) return { object: 'list', data: [] };
    const routers = await deps.routers.listByOwner(key.ownerId);
    const allowed = key.routerIds === undefined ? routers : routers.filter((router) => key.routerIds?.includes(router.id));
    return {
      object: 'list',
      data: allowed.map((router) => ({
        id: router.id,
        object: 'model',
        created: Math.floor(router.createdAt / 1000),
        owned_by: 'modelport',
        name: router.name,
        strategy: router.strategy,
      })),
    };
  };
  app.get('/api/router/models', handler);
  app.get('/api/router/v1/models', handler);
}
