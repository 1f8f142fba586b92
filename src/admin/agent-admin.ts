import { DEFAULT_AGENT_LIMITS, type AgentLimits } from '../agents/agent-definition.js';
import { createAgentService } from '../agents/agent-service.js';
import { GatewayError } from '../lib/errors.js';
import type { ModelCatalog } from '../catalog/catalog.js';
import { createOwnerCatalogs } from '../catalog/owner-catalog.js';
import type { Repositories } from '../storage/repositories.js';
import type { UserRow } from '../storage/schema.js';
import { AdminInputError } from './admin-errors.js';

/**
 * Agents for the CLI (and any other owner-side client): the same AgentService
 * the JSON API uses, addressed by owner email, its refusals as AdminInputError.
 */
export function createAgentAdmin(
  repositories: Repositories,
  catalog: ModelCatalog,
  ownerByEmail: (email: string) => Promise<UserRow>,
  limits: AgentLimits = DEFAULT_AGENT_LIMITS,
) {
  const catalogs = createOwnerCatalogs(catalog, repositories.customModels);
  const service = createAgentService({
    agents: repositories.agents,
    executions: repositories.agentExecutions,
    findRouter: async (ownerId, routerId) => {
      const router = await repositories.routers.findById(routerId);
      return router?.ownerId === ownerId ? router : undefined;
    },
    catalogFor: async (ownerId) => catalogs.forOwner(ownerId),
    limits,
  });
  const owned = async <T>(email: string, action: (ownerId: string) => Promise<T>): Promise<T> => {
    const owner = await ownerByEmail(email);
    try {
      return await action(owner.id);
    } catch (error) {
      if (error instanceof GatewayError && error.status < 500) throw new AdminInputError(error.message);
      throw error;
    }
  };
  return {
    /** Creates the agent, or saves a new version of it. */
    saveAgent: (ownerEmail: string, definition: unknown) => owned(ownerEmail, (ownerId) => service.save(ownerId, definition)),
    listAgents: (ownerEmail: string) => owned(ownerEmail, (ownerId) => service.list(ownerId)),
    showAgent: (ownerEmail: string, name: string) => owned(ownerEmail, (ownerId) => service.get(ownerId, name)),
    deleteAgent: (ownerEmail: string, name: string) => owned(ownerEmail, (ownerId) => service.remove(ownerId, name)),
    agentRuns: (ownerEmail: string, name: string, limit?: number) => owned(ownerEmail, (ownerId) => service.listExecutions(ownerId, name, limit)),
    showExecution: (ownerEmail: string, id: string) => owned(ownerEmail, (ownerId) => service.getExecution(ownerId, id)),
  };
}
