import { parseKind } from '../admin/custom-model-admin.js';
import { loadShippedCatalog, modelKind, type ModelInfo } from '../catalog/catalog.js';
import type { CommandSpec } from './command.js';
import { formatNumber, renderTable, type JsonObject } from './output.js';

function modelJson(model: ModelInfo): JsonObject {
  return {
    id: model.id,
    provider: model.provider,
    displayName: model.displayName,
    kind: modelKind(model),
    inputPerMTok: model.pricing.inputPerMTok,
    outputPerMTok: model.pricing.outputPerMTok,
    cachedInputPerMTok: model.pricing.cachedInputPerMTok ?? null,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    capabilities: { ...model.capabilities },
    simulated: model.simulated,
    ...(model.embedding === undefined
      ? {}
      : {
          embedding: {
            dimensions: model.embedding.dimensions,
            shortenable: model.embedding.shortenable,
            ...(model.embedding.dimensionChoices !== undefined ? { dimensionChoices: [...model.embedding.dimensionChoices] } : {}),
            space: model.embedding.space,
            maxBatch: model.embedding.maxBatch,
          },
        }),
  };
}

/** `1536`, `3072 (shortenable)`, `1024 (or 512, 256)`; empty for chat models. */
function dimensionsText(model: ModelInfo): string {
  const embedding = model.embedding;
  if (embedding === undefined) return '';
  if (embedding.dimensionChoices !== undefined) {
    const others = embedding.dimensionChoices.filter((choice) => choice !== embedding.dimensions);
    return others.length === 0 ? String(embedding.dimensions) : `${embedding.dimensions} (or ${others.join(', ')})`;
  }
  return embedding.shortenable ? `${embedding.dimensions} (shortenable)` : String(embedding.dimensions);
}

function notes(model: ModelInfo): string {
  return [model.simulated ? 'offline simulator' : '', model.retired === true ? 'retired' : ''].filter((note) => note !== '').join('; ');
}

const listModels: CommandSpec = {
  noun: 'models',
  verb: 'list',
  summary: 'List the models routers can use, with prices',
  description:
    'Lists the shipped model catalog: the provider:model ids routers accept, prices in USD per million tokens and context windows (an embedding model\'s: the most tokens of one input). Embedding models show their vector length (DIMENSIONS) and are priced by input alone. sim:* models are the offline simulator, not real models. Reads no database. "modelport models" alone does the same.',
  options: {
    kind: { type: 'string', valueName: 'chat|embedding', description: 'Only models of this kind' },
  },
  examples: ['modelport models list', 'modelport models list --kind embedding', 'modelport models --json'],
  async run(options) {
    const kindText = options.string('kind');
    const kind = kindText === undefined ? undefined : parseKind(kindText);
    const models = loadShippedCatalog()
      .list()
      .filter((model) => kind === undefined || modelKind(model) === kind);
    const table = renderTable(
      ['ID', 'NAME', 'INPUT $/1M', 'OUTPUT $/1M', 'CONTEXT', 'KIND', 'DIMENSIONS', 'NOTES'],
      models.map((model) => [
        model.id,
        model.displayName,
        formatNumber(model.pricing.inputPerMTok, 4),
        model.kind === 'embedding' ? '-' : formatNumber(model.pricing.outputPerMTok, 4),
        String(model.contextWindow),
        modelKind(model),
        dimensionsText(model),
        notes(model),
      ]),
    );
    return { json: { models: models.map(modelJson) }, stdout: table };
  },
};

export const modelsCommands: readonly CommandSpec[] = [listModels];
