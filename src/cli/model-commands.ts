import { parseWholeNumber } from '../admin/admin-service.js';
import { parseKind, parsePrice } from '../admin/custom-model-admin.js';
import type { CustomModelRecord } from '../storage/custom-models-repository.js';
import type { CommandSpec } from './command.js';
import { formatNumber, isoTime, renderTable, type JsonObject } from './output.js';

function customModelJson(model: CustomModelRecord): JsonObject {
  return {
    id: `${model.provider}:${model.model}`,
    provider: model.provider,
    model: model.model,
    inputPerMTok: model.inputPerMTok,
    outputPerMTok: model.outputPerMTok,
    cachedInputPerMTok: model.cachedInputPerMTok ?? null,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    capabilities: { tools: model.supportsTools, vision: model.supportsVision },
    kind: model.kind,
    ...(model.embedding === undefined ? {} : { embedding: { ...model.embedding } }),
    createdAt: isoTime(model.createdAt),
    updatedAt: isoTime(model.updatedAt),
  };
}

const addModel: CommandSpec = {
  noun: 'model',
  verb: 'add',
  summary: "Declare a model and its prices for one owner's routers",
  description:
    "Declares a model for one owner, with the prices (USD per million tokens) that cost and routing use for their requests: a model of a preset or of the owner's custom provider that the shipped catalog lacks, or the owner's own prices for a shipped model (same provider:model). The owner's routers may then list it. Declaring it again replaces its figures. An embedding model (--kind embedding) needs its vector length (--dimensions), is priced by its input alone, and names its vector space (--space): the models of an embedding router must share one, so declare deployments of one model with the same space. A shipped model keeps its kind, dimensions and space.",
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user' },
    id: { type: 'string', valueName: 'provider:model', required: true, description: 'The model id, e.g. acme:llama-3.3-70b' },
    'input-price': { type: 'string', valueName: 'usd', required: true, description: 'USD per million prompt tokens' },
    'output-price': { type: 'string', valueName: 'usd', description: 'USD per million completion tokens (chat models: required; embedding models: none)' },
    'cached-input-price': { type: 'string', valueName: 'usd', description: 'USD per million cached prompt tokens (default: the input price)' },
    'context-window': { type: 'string', valueName: 'n', description: 'Context window in tokens (default: the shipped model\'s, else 128000)' },
    'max-output': { type: 'string', valueName: 'n', description: 'Most completion tokens (default: the shipped model\'s, else 4096)' },
    tools: { type: 'boolean', description: 'The model supports tool calls' },
    vision: { type: 'boolean', description: 'The model accepts images' },
    kind: { type: 'string', valueName: 'chat|embedding', description: "What the model does (default: the shipped model's kind, else chat)" },
    dimensions: { type: 'string', valueName: 'n', description: 'Embedding models: the vector length' },
    shortenable: { type: 'boolean', description: 'Embedding models: a request\'s "dimensions" may shorten the vectors' },
    space: { type: 'string', valueName: 'name', description: 'Embedding models: the vector space, shared by deployments of one model (default: the model id, comparable with no other)' },
  },
  examples: [
    'modelport model add --owner owner@example.com --id acme:llama-3.3-70b --input-price 0.59 --output-price 0.79 --context-window 131072 --tools',
    'modelport model add --owner owner@example.com --id openai:gpt-4o --input-price 2 --output-price 8',
    'modelport model add --owner owner@example.com --id acme:nomic-embed-text --kind embedding --dimensions 768 --space nomic/nomic-embed-text-v1.5 --input-price 0',
  ],
  async run(options, context) {
    const cached = options.string('cached-input-price');
    const contextWindow = options.string('context-window');
    const maxOutput = options.string('max-output');
    const outputPrice = options.string('output-price');
    const kind = options.string('kind');
    const dimensions = options.string('dimensions');
    const input = {
      ownerEmail: options.requiredString('owner').toLowerCase(),
      id: options.requiredString('id'),
      inputPerMTok: parsePrice(options.requiredString('input-price'), '--input-price'),
      outputPerMTok: outputPrice === undefined ? undefined : parsePrice(outputPrice, '--output-price'),
      cachedInputPerMTok: cached === undefined ? undefined : parsePrice(cached, '--cached-input-price'),
      contextWindow: contextWindow === undefined ? undefined : parseWholeNumber(contextWindow, '--context-window'),
      maxOutputTokens: maxOutput === undefined ? undefined : parseWholeNumber(maxOutput, '--max-output'),
      tools: options.boolean('tools'),
      vision: options.boolean('vision'),
      kind: kind === undefined ? undefined : parseKind(kind),
      dimensions: dimensions === undefined ? undefined : parseWholeNumber(dimensions, '--dimensions'),
      // Absent, not false, when not given: a shipped model's own value then stands.
      shortenable: options.boolean('shortenable') ? true : undefined,
      space: options.string('space'),
    };
    const admin = await context.admin();
    const { model, replaced, overridesShipped } = await admin.addModel(input);
    const id = `${model.provider}:${model.model}`;
    const what = overridesShipped ? `prices for shipped model ${id}` : model.embedding === undefined ? `model ${id}` : `embedding model ${id} (${model.embedding.dimensions} dimensions, space ${model.embedding.space})`;
    const price = model.kind === 'embedding' ? `$${formatNumber(model.inputPerMTok, 6)} per million input tokens` : `$${formatNumber(model.inputPerMTok, 6)} in / $${formatNumber(model.outputPerMTok, 6)} out per million tokens`;
    return {
      json: { model: customModelJson(model), replaced, overridesShipped },
      stdout: `${replaced ? 'Replaced' : 'Added'} ${what} for ${input.ownerEmail}: ${price}.\n`,
    };
  },
};

const listModels: CommandSpec = {
  noun: 'model',
  verb: 'list',
  readsOnly: true,
  summary: 'List the models and prices an owner declared',
  description: 'Lists the models one owner declared with "model add" (new models and price overrides of shipped ones). "modelport models list" lists the shipped catalog.',
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user' },
  },
  examples: ['modelport model list --owner owner@example.com'],
  async run(options, context) {
    const admin = await context.admin();
    const models = await admin.listModels(options.requiredString('owner'));
    const table =
      models.length === 0
        ? '(no models declared)\n'
        : renderTable(
            ['ID', 'INPUT $/1M', 'OUTPUT $/1M', 'CACHED $/1M', 'CONTEXT', 'MAX OUT', 'TOOLS', 'VISION', 'KIND'],
            models.map((model) => [
              `${model.provider}:${model.model}`,
              formatNumber(model.inputPerMTok, 6),
              formatNumber(model.outputPerMTok, 6),
              model.cachedInputPerMTok === undefined ? '-' : formatNumber(model.cachedInputPerMTok, 6),
              String(model.contextWindow),
              String(model.maxOutputTokens),
              model.supportsTools ? 'yes' : 'no',
              model.supportsVision ? 'yes' : 'no',
              model.embedding === undefined ? model.kind : `embedding: ${model.embedding.dimensions} dims, space ${model.embedding.space}`,
            ]),
          );
    return { json: { models: models.map(customModelJson) }, stdout: table };
  },
};

const removeModel: CommandSpec = {
  noun: 'model',
  verb: 'remove',
  summary: 'Delete a model an owner declared',
  description: "Deletes one of an owner's declared models. A shipped model goes back to its shipped prices; routers that list a removed custom model skip it.",
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user' },
    id: { type: 'string', valueName: 'provider:model', required: true, description: 'The model id' },
  },
  examples: ['modelport model remove --owner owner@example.com --id acme:llama-3.3-70b'],
  async run(options, context) {
    const admin = await context.admin();
    const id = options.requiredString('id');
    await admin.removeModel(options.requiredString('owner'), id);
    return { json: { removed: { id } }, stdout: `Removed model ${id}.\n` };
  },
};

export const modelCommands: readonly CommandSpec[] = [addModel, listModels, removeModel];
