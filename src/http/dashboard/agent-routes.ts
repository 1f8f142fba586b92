import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AgentService } from '../../agents/agent-service.js';
import type { AgentVersionView, AgentView, ExecutionStepView, ExecutionView, IsoTimes } from '../../dashboard/dashboard-api-types.js';
import { errors } from '../../lib/errors.js';
import type { ChatRequest } from '../../providers/contract.js';
import type { ExecutionRecord, StepRecord } from '../../storage/agent-executions-repository.js';
import type { AgentRecord, AgentVersionRecord } from '../../storage/agents-repository.js';
import { runAgentCall } from '../agent-run.js';
import { admitCall, noteErrorCode, settleOnResponse, startCall } from '../call-hooks.js';
import { chatMessageSchema } from '../openai-chat/openai-chat-request-schema.js';
import { openAIChatSurface } from '../openai-chat/openai-chat-surface.js';
import { DASHBOARD_PREFIX, sessionOf, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';
import { playgroundKey } from './playground-route.js';

const executionsQuery = Type.Object({ limit: Type.Optional(Type.String()) });

const runSchema = Type.Object(
  {
    input: Type.Optional(Type.String({ maxLength: 100_000 })),
    messages: Type.Optional(Type.Array(chatMessageSchema, { minItems: 1, maxItems: 1000 })),
    stream: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

function agentView(agent: AgentRecord): IsoTimes<AgentView<unknown>> {
  return withIsoTimes({
    id: agent.id,
    name: agent.name,
    model: `agent:${agent.name}`,
    description: agent.description,
    version: agent.version,
    definition: agent.definition,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
  });
}

function versionView(version: AgentVersionRecord): IsoTimes<AgentVersionView<unknown>> {
  return withIsoTimes({ version: version.version, definition: version.definition, createdAt: version.createdAt });
}

function executionView(execution: ExecutionRecord): IsoTimes<ExecutionView> {
  const { ownerId: _ownerId, errorCode, errorMessage, ...rest } = execution;
  return withIsoTimes({ ...rest, error: errorCode === null ? null : { code: errorCode, message: errorMessage } });
}

function stepView(step: StepRecord): IsoTimes<ExecutionStepView> {
  const { errorCode, errorMessage, ...rest } = step;
  return withIsoTimes({ ...rest, error: errorCode === null ? null : { code: errorCode, message: errorMessage } });
}

/**
 * Agents of a workspace (docs/dashboard-api.md, Agents): the same AgentService
 * as /api/v1/agents, so save-time errors (400 `invalid_agent`, `param`
 * `steps[1].prompt`) reach the form unchanged. Viewers read and run; admins write.
 */
export function registerAgentRoutes(app: FastifyInstance, { deps, services }: DashboardContext): void {
  const service = (): AgentService => {
    if (deps.agents === undefined) throw errors.endpointNotFound('GET', `${DASHBOARD_PREFIX}/workspaces/:ws/agents`);
    return deps.agents;
  };
  const nameOf = (request: FastifyRequest): string => (request.params as { name: string }).name;
  const bodyOf = (request: FastifyRequest): unknown => {
    if (request.body === undefined || request.body === null) throw errors.invalidJson('The request body is empty; send the agent definition as a JSON object.');
    return request.body;
  };
  const base = `${DASHBOARD_PREFIX}/workspaces/:ws/agents`;

  app.get(base, async (request) => {
    const workspace = await workspaceOf(request, services);
    return { agents: (await service().list(workspace.id)).map(agentView) };
  });

  app.post(base, async (request, reply) => {
    const workspace = await workspaceOf(request, services, 'admin');
    return reply.status(201).send(agentView(await service().create(workspace.id, bodyOf(request))));
  });

  app.get(`${base}/:name`, async (request) => {
    const workspace = await workspaceOf(request, services);
    const { agent, versions } = await service().get(workspace.id, nameOf(request));
    return { ...agentView(agent), versions: versions.map(versionView) };
  });

  app.get(`${base}/:name/versions`, async (request) => {
    const workspace = await workspaceOf(request, services);
    return { versions: (await service().get(workspace.id, nameOf(request))).versions.map(versionView) };
  });

  app.put(`${base}/:name`, async (request) => {
    const workspace = await workspaceOf(request, services, 'admin');
    return agentView(await service().update(workspace.id, nameOf(request), bodyOf(request)));
  });

  app.delete(`${base}/:name`, async (request, reply) => {
    const workspace = await workspaceOf(request, services, 'admin');
    await service().remove(workspace.id, nameOf(request));
    return reply.status(204).send();
  });

  app.get<{ Querystring: Static<typeof executionsQuery> }>(`${base}/:name/executions`, { schema: { querystring: executionsQuery } }, async (request) => {
    const workspace = await workspaceOf(request, services);
    const limit = Number(request.query.limit ?? 50);
    if (!Number.isInteger(limit) || limit < 1) throw errors.invalidRequest('"limit" must be a positive whole number.', 'limit');
    return { executions: (await service().listExecutions(workspace.id, nameOf(request), limit)).map(executionView) };
  });

  app.get(`${DASHBOARD_PREFIX}/workspaces/:ws/executions/:id`, async (request) => {
    const workspace = await workspaceOf(request, services);
    const { id } = request.params as { id: string };
    if (id.length > 128) throw errors.executionNotFound(id);
    const { execution, steps } = await service().getExecution(workspace.id, id);
    return { ...executionView(execution), steps: steps.map(stepView) };
  });

  // Runs like `model: "agent:<name>"` on /api/router/v1/chat/completions, as the playground calls routers.
  const run = async (request: FastifyRequest, reply: FastifyReply) => {
    const workspace = await workspaceOf(request, services);
    const body = request.body as Static<typeof runSchema>;
    const messages = body.messages ?? (body.input === undefined ? undefined : [{ role: 'user' as const, content: body.input }]);
    if (messages === undefined) throw errors.invalidRequest('Send "input" (the text to run the agent on) or "messages".', 'input');
    // An agent that is not there is a 404 with no usage record, as the playground treats a router that is not there.
    await service().get(workspace.id, nameOf(request));
    const key = playgroundKey(workspace.id);
    await admitCall(request, reply, { ...key, id: `dashboard:${sessionOf(request).userId}` }, deps);
    request.gateway.key = key;
    const chatRequest = { messages } as unknown as ChatRequest;
    const decoded = { chatRequest, model: `agent:${nameOf(request)}`, stream: body.stream === true, includeUsage: false };
    return runAgentCall(request, reply, openAIChatSurface, decoded, deps);
  };

  app.post(
    `${base}/:name/run`,
    {
      schema: { body: runSchema },
      onRequest: startCall,
      // A run refused before its steps started is one usage record, as on the gateway; steps record their own.
      onResponse: settleOnResponse(deps),
      onError: noteErrorCode,
    },
    run,
  );
}
