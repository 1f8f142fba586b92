import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AdminInputError } from '../../admin/admin-errors.js';
import { parseWholeNumber } from '../../admin/admin-service.js';
import { parseKind, parsePrice } from '../../admin/custom-model-admin.js';
import type { IsoTimes } from '../../dashboard/dashboard-api-types.js';
import type { CustomModelView, SavedCustomModelView } from '../../dashboard/provider-api-types.js';
import { errors } from '../../lib/errors.js';
import type { CustomModelRecord } from '../../storage/custom-models-repository.js';
import { DASHBOARD_PREFIX, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';

/** A figure as a number, or as typed in a form (then read exactly as the CLI reads its flag). */
const figure = Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 40 }), Type.Null()]));

const newModelSchema = Type.Object(
  {
    id: Type.String({ maxLength: 300 }),
    inputPerMTok: Type.Union([Type.Number(), Type.String({ maxLength: 40 })]),
    outputPerMTok: figure,
    cachedInputPerMTok: figure,
    contextWindow: figure,
    maxOutputTokens: figure,
    tools: Type.Optional(Type.Boolean()),
    vision: Type.Optional(Type.Boolean()),
    kind: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
    dimensions: figure,
    shortenable: Type.Optional(Type.Boolean()),
    space: Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Null()])),
  },
  { additionalProperties: false },
);

/** Each CLI flag the admin's messages name, and the field of this API it is. */
const FLAG_FIELDS: readonly (readonly [string, string])[] = [
  ['--cached-input-price', 'cachedInputPerMTok'],
  ['--input-price', 'inputPerMTok'],
  ['--output-price', 'outputPerMTok'],
  ['--context-window', 'contextWindow'],
  ['--max-output', 'maxOutputTokens'],
  ['--dimensions', 'dimensions'],
  ['--space', 'space'],
  ['--shortenable', 'shortenable'],
  ['--kind', 'kind'],
];

/** The admin's rule that failed, as a 400 at the field its message names; the message is the CLI's, word for word. */
function modelError(error: unknown): unknown {
  if (!(error instanceof AdminInputError)) return error;
  const field = FLAG_FIELDS.find(([flag]) => error.message.includes(flag))?.[1] ?? 'id';
  return errors.invalidRequest(error.message, error.field ?? field);
}

/** Blank form fields are left out, as flags not given are. */
const blank = (value: number | string | null | undefined): value is null | undefined | '' => value === null || value === undefined || (typeof value === 'string' && value.trim() === '');

/** A price given as text goes through the CLI's own parser; a number straight to the admin's range check. */
function price(value: number | string | null | undefined, flag: string): number | undefined {
  if (blank(value)) return undefined;
  return typeof value === 'number' ? value : parsePrice(value, flag);
}

function wholeNumber(value: number | string | null | undefined, flag: string): number | undefined {
  if (blank(value)) return undefined;
  return typeof value === 'number' ? value : parseWholeNumber(value, flag);
}

export function customModelView(model: CustomModelRecord): IsoTimes<CustomModelView> {
  return withIsoTimes({
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
    embedding: model.embedding === undefined ? null : { ...model.embedding },
    createdAt: model.createdAt,
    updatedAt: model.updatedAt,
  });
}

/**
 * Settings → Models: the models and prices an owner declared, through the same
 * admin functions (and so the same rules and messages) as `modelport model …`.
 * Reading is for every member; declaring and removing is for admins and owners.
 */
export function registerCustomModelRoutes(app: FastifyInstance, { services }: DashboardContext): void {
  const admin = services.ownerProviders;
  const base = `${DASHBOARD_PREFIX}/workspaces/:ws/custom-models`;

  app.get(base, async (request) => {
    const workspace = await workspaceOf(request, services);
    return { models: (await admin.listModels(workspace.ownerEmail)).map(customModelView) };
  });

  app.post(base, { schema: { body: newModelSchema } }, async (request, reply) => {
    const workspace = await workspaceOf(request, services, 'admin');
    const body = request.body as Static<typeof newModelSchema>;
    try {
      const { model, replaced, overridesShipped } = await admin.addModel({
        ownerEmail: workspace.ownerEmail,
        id: body.id,
        // In the CLI's order, so one bad input fails with the same message first.
        inputPerMTok: price(body.inputPerMTok, '--input-price') ?? parsePrice('', '--input-price'),
        outputPerMTok: price(body.outputPerMTok, '--output-price'),
        cachedInputPerMTok: price(body.cachedInputPerMTok, '--cached-input-price'),
        contextWindow: wholeNumber(body.contextWindow, '--context-window'),
        maxOutputTokens: wholeNumber(body.maxOutputTokens, '--max-output'),
        tools: body.tools === true,
        vision: body.vision === true,
        kind: blank(body.kind) ? undefined : parseKind(body.kind),
        dimensions: wholeNumber(body.dimensions, '--dimensions'),
        // Absent, not false, when not set: a shipped model's own value then stands.
        shortenable: body.shortenable === true ? true : undefined,
        space: blank(body.space) ? undefined : body.space,
      });
      const saved: IsoTimes<SavedCustomModelView> = { model: customModelView(model), replaced, overridesShipped };
      return await reply.status(replaced ? 200 : 201).send(saved);
    } catch (error) {
      throw modelError(error);
    }
  });

  app.delete(`${base}/:id`, async (request) => {
    const workspace = await workspaceOf(request, services, 'admin');
    const { id } = request.params as { id: string };
    try {
      await admin.removeModel(workspace.ownerEmail, id);
      return { id };
    } catch (error) {
      throw modelError(error);
    }
  });
}
