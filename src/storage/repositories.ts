import { createAgentExecutionsRepository } from './agent-executions-repository.js';
import { createAgentsRepository } from './agents-repository.js';
import { createApiKeysRepository } from './api-keys-repository.js';
import { createBudgetsRepository } from './budgets-repository.js';
import { createChangesRepository } from './changes-repository.js';
import { createCustomModelsRepository } from './custom-models-repository.js';
import type { Storage } from './database.js';
import { createProviderCredentialsRepository } from './provider-credentials-repository.js';
import { createRequestLogRepository } from './request-log-repository.js';
import { createResponsesRepository } from './responses-repository.js';
import { createRoutersRepository } from './routers-repository.js';
import { createRoutingLabelsRepository } from './routing-labels-repository.js';
import { createUsageExportRepository } from './usage-export-repository.js';
import { createUsageRepository } from './usage-repository.js';
import { createUsageRetentionRepository } from './usage-retention-repository.js';
import { createUsersRepository } from './users-repository.js';

export function createRepositories(storage: Storage, now: () => number = Date.now) {
  return {
    users: createUsersRepository(storage.db, now),
    routers: createRoutersRepository(storage.db, now),
    apiKeys: createApiKeysRepository(storage.db, now),
    usage: createUsageRepository(storage.db),
    usageExport: createUsageExportRepository(storage.db),
    changes: createChangesRepository(storage.db),
    providerCredentials: createProviderCredentialsRepository(storage.db, now),
    customModels: createCustomModelsRepository(storage.db, now),
    agents: createAgentsRepository(storage.db, now),
    agentExecutions: createAgentExecutionsRepository(storage.db),
    budgets: createBudgetsRepository(storage.db, now),
    responses: createResponsesRepository(storage.db),
    routingLabels: createRoutingLabelsRepository(storage.db, now),
    requestLogs: createRequestLogRepository(storage.db),
    retention: createUsageRetentionRepository(storage.db, storage.dialect),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
