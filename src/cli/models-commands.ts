import { loadShippedCatalog, type ModelInfo } from '../catalog/catalog.js';
import type { CommandSpec } from './command.js';
import { formatNumber, renderTable, type JsonObject } from './output.js';

function modelJson(model: ModelInfo): JsonObject {
  return {
    id: model.id,
    provider: model.provider,
    displayName: model.displayName,
    inputPerMTok: model.pricing.inputPerMTok,
    outputPerMTok: model.pricing.outputPerMTok,
    cachedInputPerMTok: model.pricing.cachedInputPerMTok ?? null,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    capabilities: { ...model.capabilities },
    simulated: model.simulated,
  };
}

const listModels: CommandSpec = {
  noun: 'models',
  verb: 'list',
  summary: 'List the models routers can use, with prices',
  description:
    'Lists the shipped model catalog: the provider:model ids routers accept, prices in USD per million tokens and context windows. sim:* models are the offline simulator, not real models. Reads no database. "modelport models" alone does the same.',
  options: {},
  examples: ['modelport models list', 'modelport models --json'],
  async run() {
    const models = loadShippedCatalog().list();
    const table = renderTable(
      ['ID', 'NAME', 'INPUT $/1M', 'OUTPUT $/1M', 'CONTEXT', 'NOTES'],
      models.map((model) => [
        model.id,
        model.displayName,
        formatNumber(model.pricing.inputPerMTok, 4),
        formatNumber(model.pricing.outputPerMTok, 4),
        String(model.contextWindow),
        model.simulated ? 'offline simulator' : '',
      ]),
    );
    return { json: { models: models.map(modelJson) }, stdout: table };
  },
};

export const modelsCommands: readonly CommandSpec[] = [listModels];
