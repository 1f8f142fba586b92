import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AdminInputError } from '../../admin/admin-errors.js';
import type { ProviderCredentialView } from '../../admin/provider-admin.js';
import type { IsoTimes } from '../../dashboard/dashboard-api-types.js';
import type { ProviderCredentialApiView, ProviderListView, ProviderPresetView, ProviderTestView, RemovedProviderView, SavedProviderView } from '../../dashboard/provider-api-types.js';
import { errors } from '../../lib/errors.js';
import { acceptsOwnerKey } from '../../providers/credentials/owner-credentials.js';
import { PROVIDER_PRESETS } from '../../providers/credentials/provider-presets.js';
import { DASHBOARD_PREFIX, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';

const newProviderSchema = Type.Object(
  {
    provider: Type.String({ maxLength: 100 }),
    apiKey: Type.Optional(Type.Union([Type.String({ maxLength: 8192 }), Type.Null()])),
    baseUrl: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  },
  { additionalProperties: false },
);
const testSchema = Type.Object({ model: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])) }, { additionalProperties: false });

/** The presets an owner may bring a key for, as the form offers them. */
const PRESETS: readonly ProviderPresetView[] = PROVIDER_PRESETS.filter(acceptsOwnerKey).map((preset) => ({
  name: preset.name,
  label: preset.label,
  defaultBaseUrl: preset.defaultBaseUrl,
  requiresKey: preset.requiresKey,
}));

/** The admin's rule that failed, as a 400 at the field its message names; the message is the CLI's, word for word. */
function providerError(error: unknown): unknown {
  if (!(error instanceof AdminInputError)) return error;
  const field = /base URL|--base-url|not a URL|resolve/i.test(error.message) ? 'baseUrl' : /API key|--api-key/i.test(error.message) ? 'apiKey' : 'provider';
  return errors.invalidRequest(error.message, error.field ?? field);
}

/** Blank fields of a form mean "not given", as a flag left out does on the command line. */
const given = (value: string | null | undefined): string | undefined => (value === null || value === undefined || value.trim() === '' ? undefined : value);

function credentialApiView(view: ProviderCredentialView): IsoTimes<ProviderCredentialApiView> {
  return withIsoTimes({
    provider: view.provider,
    kind: view.kind,
    baseUrl: view.baseUrl ?? null,
    keyHint: view.keyHint ?? null,
    hasKey: view.hasKey,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
  });
}

/**
 * Settings → Providers: an owner's own provider keys, through the same admin
 * functions (and so the same rules and messages) as `modelport provider …`.
 * Reading is for every member; adding, testing and removing is for admins and
 * owners, as with API keys. A key is never answered, only its last 4 characters.
 */
export function registerProviderRoutes(app: FastifyInstance, { services }: DashboardContext): void {
  const admin = services.ownerProviders;
  const base = `${DASHBOARD_PREFIX}/workspaces/:ws/providers`;
  const providerParam = (params: unknown): string => (params as { provider: string }).provider;

  app.get(base, async (request): Promise<IsoTimes<ProviderListView>> => {
    const workspace = await workspaceOf(request, services);
    const views = await admin.listProviders(workspace.ownerEmail);
    return { providers: views.map(credentialApiView), presets: PRESETS };
  });

  app.post(base, { schema: { body: newProviderSchema } }, async (request, reply) => {
    const workspace = await workspaceOf(request, services, 'admin');
    const body = request.body as Static<typeof newProviderSchema>;
    try {
      const { credential, replaced } = await admin.addProvider({ ownerEmail: workspace.ownerEmail, provider: body.provider, apiKey: given(body.apiKey), baseUrl: given(body.baseUrl) });
      const saved: IsoTimes<SavedProviderView> = { provider: credentialApiView(credential), replaced };
      return await reply.status(replaced ? 200 : 201).send(saved);
    } catch (error) {
      throw providerError(error);
    }
  });

  app.post(`${base}/:provider/test`, { schema: { body: testSchema } }, async (request): Promise<ProviderTestView> => {
    const workspace = await workspaceOf(request, services, 'admin');
    const provider = providerParam(request.params);
    const body = request.body as Static<typeof testSchema>;
    try {
      const result = await admin.testProvider({ ownerEmail: workspace.ownerEmail, provider, model: given(body.model) });
      return { provider, ok: result.ok, target: result.target, latencyMs: result.latencyMs, statusCode: result.statusCode ?? null, message: result.message };
    } catch (error) {
      throw providerError(error);
    }
  });

  app.delete(`${base}/:provider`, async (request): Promise<RemovedProviderView> => {
    const workspace = await workspaceOf(request, services, 'admin');
    const provider = providerParam(request.params);
    try {
      const { modelsRemoved } = await admin.removeProvider(workspace.ownerEmail, provider);
      return { provider, modelsRemoved };
    } catch (error) {
      throw providerError(error);
    }
  });
}
