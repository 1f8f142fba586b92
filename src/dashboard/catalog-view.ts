import type { ChatModel } from '../providers/contract.js';
import type { LocalServerProbe } from '../providers/credentials/local-server-probe.js';
import type { OwnerProviders } from '../providers/credentials/owner-providers.js';
import { modelKind, type ModelCatalog } from '../catalog/catalog.js';
import type { OwnerCatalogs } from '../catalog/owner-catalog.js';
import { STRATEGY_NAMES } from '../routing/strategies/routing-strategy.js';
import type { CatalogModelView, StrategyView } from './dashboard-api-types.js';
import { availabilityOf } from './model-availability.js';

/** One sentence per strategy (docs/routing.md), for the router form. */
const STRATEGY_TEXT: Record<string, { label: string; description: string }> = {
  cost_optimized: { label: 'Lowest cost', description: 'Sends each request to the model expected to answer it most cheaply, from its prompt length and expected answer length.' },
  latency_optimized: {
    label: 'Fastest',
    description: 'Sends each request to the model expected to finish the answer soonest, from live measurements once a model has been measured.',
  },
  quality_optimized: { label: 'Best quality', description: 'Always picks the strongest model by its quality rating, whatever it costs.' },
  carbon_optimized: {
    label: 'Lowest carbon',
    description: "Picks the model expected to emit the least CO2e for the request, from its size and its data centre's grid.",
  },
  balanced: { label: 'Balanced', description: 'Blends cost, latency, quality and carbon with weights you set (equal by default) and picks the best blend.' },
  auto: { label: 'Auto', description: 'Reads each prompt and picks the cheapest model expected to reach your quality target (ranks like balanced until its predictor is enabled).' },
};

export function listStrategies(): StrategyView[] {
  return STRATEGY_NAMES.map((id) => ({ id, ...(STRATEGY_TEXT[id] ?? { label: id, description: `The ${id} strategy (see docs/routing.md).` }) }));
}

/** What tells a configured provider from one that answers, and the server's credentials from an owner's. */
export interface CatalogAvailability {
  /** The server-wide providers and the local servers' last checks. Absent: a configured provider counts as available. */
  readonly probe?: LocalServerProbe | undefined;
  /** @default every model is the server's */
  readonly isServerModel?: ((model: ChatModel) => boolean) | undefined;
}

/**
 * The catalog as the dashboard shows it; `ownerId` layers that owner's models and credentials over the server's.
 * Models that can be called come first, the offline simulator's first among them (it works on a fresh install with
 * no key), then by provider; the catalog's order within a provider.
 */
export async function catalogView(
  shipped: ModelCatalog,
  ownerCatalogs: OwnerCatalogs,
  providers: OwnerProviders,
  ownerId: string | undefined,
  availability: CatalogAvailability = {},
): Promise<CatalogModelView[]> {
  const [catalog, resolve] = await Promise.all([
    ownerId === undefined ? shipped : ownerCatalogs.forOwner(ownerId),
    // An owner id nobody has resolves to the server's credentials alone, without the local servers unless the
    // operator offers them to everyone (MODELPORT_LOCAL_PROVIDERS=all).
    providers.forOwner(ownerId ?? ''),
  ]);
  const isServerModel = availability.isServerModel ?? (() => true);
  const views = catalog.list().map((model): CatalogModelView => ({
    id: model.id,
    provider: model.provider,
    name: model.displayName,
    kind: modelKind(model),
    ...(model.embedding !== undefined ? { embedding: { dimensions: model.embedding.dimensions, shortenable: model.embedding.shortenable, space: model.embedding.space } } : {}),
    inputPerMTok: model.pricing.inputPerMTok,
    outputPerMTok: model.pricing.outputPerMTok,
    cachedInputPerMTok: model.pricing.cachedInputPerMTok ?? null,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    capabilities: { tools: model.capabilities.tools, vision: model.capabilities.vision, json: model.capabilities.jsonMode, streaming: model.capabilities.streaming },
    // A chat rating; embedding models have none that means anything.
    ...(model.kind === 'embedding' ? {} : { quality: model.qualityScore }),
    ...availabilityOf(model.provider, { resolved: resolve(model.provider, model.model), isServerModel, probe: availability.probe }),
    retired: model.retired === true,
  }));
  return sortForPicking(views);
}

/** Usable models first (available, not retired), `sim` first among them, then by provider; stable within a provider. */
export function sortForPicking(views: readonly CatalogModelView[]): CatalogModelView[] {
  const rank = (view: CatalogModelView) => (view.available && !view.retired ? 0 : 2) + (view.provider === 'sim' ? 0 : 1);
  // Array sort is stable: the catalog's order stays within a provider.
  return [...views].sort((a, b) => rank(a) - rank(b) || a.provider.localeCompare(b.provider));
}
