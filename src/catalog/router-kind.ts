import { modelKind, type ModelCatalog, type ModelInfo, type ModelKind } from './catalog.js';

/**
 * A router's kind is its models' kind: it serves chat or embeddings, never
 * both. An embedding router's models also share one vector space, since the
 * vectors of different models are not comparable (docs/decisions.md): its
 * fallback only ever moves between deployments of one model.
 */

/** The kind of a router's models: that of the first one the catalog knows; `chat` when it knows none. */
export function routerKind(modelIds: readonly string[], catalog: ModelCatalog): ModelKind {
  for (const id of modelIds) {
    const model = catalog.get(id);
    if (model !== undefined) return modelKind(model);
  }
  return 'chat';
}

/** Why these models cannot make one router (the reason, for people), or undefined when they can. */
export function routerModelsProblem(models: readonly ModelInfo[]): string | undefined {
  const first = models[0];
  if (first === undefined) return undefined;
  const kind = modelKind(first);
  const other = models.find((model) => modelKind(model) !== kind);
  if (other !== undefined) {
    const [chat, embedding] = kind === 'chat' ? [first, other] : [other, first];
    return `A router serves either chat or embeddings, not both: ${chat.id} is a chat model and ${embedding.id} an embedding model. Put them in separate routers.`;
  }
  if (kind === 'chat') return undefined;
  const space = first.embedding?.space;
  const stranger = models.find((model) => model.embedding?.space !== space);
  if (stranger === undefined) return undefined;
  return (
    `The models of an embedding router must give vectors in one space: ${first.id} gives ${space ?? 'none'}, ${stranger.id} ${stranger.embedding?.space ?? 'none'}. ` +
    'Vectors from different models are not comparable: a router may fall back only between deployments of the same model.'
  );
}
