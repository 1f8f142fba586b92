import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { agentJson, executionJson, stepJson, versionJson } from '../agents/agent-views.js';
import type { AgentService } from '../agents/agent-service.js';
import { errors } from '../lib/errors.js';
import { dismissCall } from '../pipeline/call-settlement.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import type { AppDependencies } from './dependencies.js';

const executionsQuery = Type.Object({ limit: Type.Optional(Type.String()) });

/**
 * The agents JSON API (docs/agents.md), authenticated by the owner's `mp_` key
 * like the chat API it is registered beside. Every call is scoped to the key's
 * owner, and reads to what the key may see (AgentService.forKey); a key
 * restricted to some routers may read but not change agents.
 * These calls are not usage: they write no usage record.
 */
export async function agentsApi(app: FastifyInstance, deps: AppDependencies): Promise<void> {
  app.addHook('onRequest', async (request) => {
    dismissCall(request.gateway);
  });
  const service = (): AgentService => {
    if (deps.agents === undefined) throw errors.endpointNotFound('GET', '/api/v1/agents');
    return deps.agents;
  };
  const ownerOf = (request: FastifyRequest): ApiKeyRecord => {
    const key = request.gateway.key;
    if (key === undefined) throw errors.invalidApiKey();
    return key;
  };
  const writer = (request: FastifyRequest): string => {
    const key = ownerOf(request);
    if (key.routerIds !== undefined) throw errors.keyRestricted();
    return key.ownerId;
  };
  const nameOf = (request: FastifyRequest): string => (request.params as { name: string }).name;
  const readerOf = (request: FastifyRequest) => {
    const key = ownerOf(request);
    return service().forKey(key.ownerId, key);
  };

  app.get('/api/v1/agents', async (request) => ({ object: 'list', data: (await readerOf(request).list()).map(agentJson) }));

  app.post('/api/v1/agents', async (request, reply) => {
    if (request.body === undefined) throw errors.invalidJson('The request body is empty; send the agent definition as a JSON object.');
    const agent = await service().create(writer(request), request.body);
    return reply.status(201).send(agentJson(agent));
  });

  app.get('/api/v1/agents/:name', async (request) => {
    const { agent, versions } = await readerOf(request).get(nameOf(request));
    return { ...agentJson(agent), versions: versions.map(versionJson) };
  });

  app.put('/api/v1/agents/:name', async (request) => {
    if (request.body === undefined) throw errors.invalidJson('The request body is empty; send the agent definition as a JSON object.');
    return agentJson(await service().update(writer(request), nameOf(request), request.body));
  });

  app.delete('/api/v1/agents/:name', async (request) => {
    await service().remove(writer(request), nameOf(request));
    return { object: 'agent', name: nameOf(request), deleted: true };
  });

  app.get<{ Querystring: Static<typeof executionsQuery> }>('/api/v1/agents/:name/executions', { schema: { querystring: executionsQuery } }, async (request) => {
    const limit = Number(request.query.limit ?? 50);
    if (!Number.isInteger(limit) || limit < 1) throw errors.invalidRequest('limit must be a positive whole number.', 'limit');
    const executions = await readerOf(request).listExecutions(nameOf(request), limit);
    return { object: 'list', data: executions.map(executionJson) };
  });

  app.get('/api/v1/executions/:id', async (request) => {
    const { execution, steps } = await readerOf(request).getExecution((request.params as { id: string }).id);
    return { ...executionJson(execution), steps: steps.map(stepJson) };
  });
}
