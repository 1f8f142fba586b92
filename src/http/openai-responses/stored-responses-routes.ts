import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../lib/errors.js';
import { dismissCall } from '../../pipeline/call-settlement.js';
import type { AppDependencies } from '../dependencies.js';
import { responseNotFound, unsupportedParameter } from './openai-responses-errors.js';
import type { ResponseItem } from './openai-responses-request-schema.js';
import type { StoredResponse } from './response-store.js';

/** The forms of a stored response's address, as for POST …/responses (a router id in the path is not needed, nor checked). */
const BASES = ['/api/router/responses', '/api/router/v1/responses', '/api/router/:routerId/responses', '/api/router/v1/:routerId/responses'] as const;

const responseQuery = Type.Object({ stream: Type.Optional(Type.String()) });
const inputItemsQuery = Type.Object({
  limit: Type.Optional(Type.String()),
  order: Type.Optional(Type.String()),
  after: Type.Optional(Type.String()),
  before: Type.Optional(Type.String()),
});

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/**
 * `GET …/responses/{id}`, `DELETE …/responses/{id}` and `GET …/responses/{id}/input_items`, with the key, scoped to
 * its owner: another owner's id is 404 like one that never existed. Reading what was stored is not usage: these write
 * no usage record (the key's requests per minute still count them).
 */
export async function storedResponsesApi(app: FastifyInstance, deps: AppDependencies): Promise<void> {
  app.addHook('onRequest', async (request) => {
    dismissCall(request.gateway);
  });

  const load = async (request: FastifyRequest): Promise<{ id: string; stored: StoredResponse }> => {
    const id = (request.params as { responseId: string }).responseId;
    const ownerId = request.gateway.key?.ownerId;
    if (ownerId === undefined) throw errors.invalidApiKey();
    const stored = deps.responses === undefined ? undefined : await deps.responses.load(id, ownerId);
    if (stored === undefined) throw responseNotFound(id);
    return { id, stored };
  };

  for (const base of BASES) {
    app.get<{ Querystring: Static<typeof responseQuery> }>(`${base}/:responseId`, { schema: { querystring: responseQuery } }, async (request) => {
      if (request.query.stream === 'true') throw unsupportedParameter('stream', 'a stored response is given whole; its events are not kept.');
      return (await load(request)).stored.response;
    });

    app.delete(`${base}/:responseId`, async (request) => {
      const id = (request.params as { responseId: string }).responseId;
      const ownerId = request.gateway.key?.ownerId;
      if (ownerId === undefined) throw errors.invalidApiKey();
      if (deps.responses === undefined || !(await deps.responses.remove(id, ownerId))) throw responseNotFound(id);
      return { id, object: 'response', deleted: true };
    });

    app.get<{ Querystring: Static<typeof inputItemsQuery> }>(`${base}/:responseId/input_items`, { schema: { querystring: inputItemsQuery } }, async (request) => {
      const { stored } = await load(request);
      return listPage(stored.inputItems, request.query);
    });
  }
}

/** OpenAI's cursor list: `limit` (1–100, 20), `order` (`desc` by default, as OpenAI), `after` / `before` item ids. */
export function listPage(items: readonly ResponseItem[], query: Record<string, unknown>): Record<string, unknown> {
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw errors.invalidRequest(`limit must be a whole number from 1 to ${MAX_LIMIT}.`, 'limit');
  const order = query.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw errors.invalidRequest('order must be "asc" or "desc".', 'order');
  const ordered = order === 'asc' ? items : [...items].reverse();
  const position = (name: 'after' | 'before'): number | undefined => {
    const id = query[name];
    if (id === undefined || id === '') return undefined;
    const index = ordered.findIndex((item) => item.id === id);
    if (index < 0) throw errors.invalidRequest(`${name}: no input item of this response has the id ${JSON.stringify(id)}.`, name);
    return index;
  };
  const after = position('after');
  const before = position('before');
  const start = after === undefined ? 0 : after + 1;
  const bound = before ?? ordered.length;
  const data = ordered.slice(start, Math.max(start, Math.min(bound, start + limit)));
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + data.length < bound,
  };
}
