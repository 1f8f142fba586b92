import type { ModelCatalog, ModelInfo, ModelKind } from '../../catalog/catalog.js';
import type { Availability, ModelHealthView, RouterSettings } from '../routing-contract.js';
import { estimateCandidate, type RequestProfile } from './estimates.js';
import { formatUsdEstimate } from '../../lib/money.js';
import type { CandidateEstimate } from './routing-strategy.js';

/**
 * The filters every strategy runs behind: a model that cannot serve the request
 * is dropped with the reason, before any ranking. Checked in this order, the
 * first that applies is the reason reported:
 *
 * 1. `unknown_model`: the router lists a model this server's (or owner's) catalog does not know.
 * 2. `kind`: the model is of the other kind (a chat request never reaches an embedding model, nor
 *    an embedding request a chat model), or, for an embedding request, it gives vectors in another
 *    space than the router's first embedding model (routers are checked for that when saved; a
 *    model redeclared since must still never mix vectors).
 * 3. `input`: the caller says the request's input cannot go to this model (token-array
 *    input on a provider that takes only text).
 * 4. `context_window`: prompt tokens plus `max_tokens` exceed the model's context window
 *    (embedding requests: the longest input exceeds it).
 * 5. `tools` / `vision`: the request sends tools or images the model does not take.
 * 6. `cost_ceiling`: the expected cost exceeds the router's `maxCostPerRequestUsd`.
 * 7. `unavailable`: health says the model's circuit is open (or half-open with its one probe
 *    already out) or its provider asked us to back off (429).
 *
 * Health comes last on purpose: a model dropped as unavailable passed every
 * other check, so it could serve the request once it recovers (a 503, not a 400).
 */

export type DropCode = 'unknown_model' | 'not_configured' | 'kind' | 'input' | 'context_window' | 'tools' | 'vision' | 'cost_ceiling' | 'unavailable';

const NOT_CHAT = 'an embedding model cannot answer a chat request';
const NOT_EMBEDDING = 'a chat model cannot embed';

export interface DroppedCandidate {
  /** `provider:model` as the router lists it. */
  readonly model: string;
  readonly code: DropCode;
  /** For people, e.g. "context window 128000 < 150300 tokens needed". */
  readonly reason: string;
  /** `unavailable` only: when health says it may be called again (epoch ms), for `Retry-After`. */
  readonly availableAgainAt?: number;
}

export interface EligibilityInput {
  /** The router's model ids, in the owner's order of preference. */
  readonly modelIds: readonly string[];
  /** The owner's catalog. */
  readonly catalog: ModelCatalog;
  /** What the request asks for; models of the other kind are dropped. @default 'chat' */
  readonly kind?: ModelKind | undefined;
  /** Why the request's input cannot go to this model (e.g. "token-array input"), or undefined when it can. */
  readonly refuseInput?: ((model: ModelInfo) => string | undefined) | undefined;
  readonly profile: RequestProfile;
  readonly settings: RouterSettings;
  /** Undefined: every model is healthy and nothing is measured. */
  readonly health: ModelHealthView | undefined;
  /** The key a model's health is kept under. @default the model id */
  readonly healthKey?: ((model: ModelInfo) => string) | undefined;
  /** Epoch milliseconds, as health reads it. */
  readonly now: number;
}

export interface Eligibility {
  /** In the owner's order of preference. */
  readonly eligible: CandidateEstimate[];
  readonly dropped: DroppedCandidate[];
}

export function filterEligible(input: EligibilityInput): Eligibility {
  const { profile, settings, health, now } = input;
  const eligible: CandidateEstimate[] = [];
  const dropped: DroppedCandidate[] = [];
  const embedding = input.kind === 'embedding';
  const needed = profile.embedding === undefined ? profile.promptTokens + (profile.maxTokens ?? 0) : profile.embedding.longestInputTokens;
  const ceiling = settings.maxCostPerRequestUsd;
  const space = embedding ? routerSpace(input.modelIds, input.catalog) : undefined;
  const seen = new Set<string>();
  for (const id of input.modelIds) {
    const model = input.catalog.get(id);
    if (model === undefined) {
      dropped.push({ model: id, code: 'unknown_model', reason: 'not in this server\'s catalog nor declared by the owner' });
      continue;
    }
    // An alias and its model's id name one model: it is considered once, where the owner first listed it.
    if (seen.has(model.id)) continue;
    seen.add(model.id);
    // A string compare on the chat path: a stored router may still list a model of the other kind.
    if ((model.kind === 'embedding') !== embedding) {
      dropped.push({ model: id, code: 'kind', reason: embedding ? NOT_EMBEDDING : NOT_CHAT });
      continue;
    }
    if (space !== undefined && model.embedding?.space !== space) {
      dropped.push({ model: id, code: 'kind', reason: `gives vectors in ${model.embedding?.space ?? 'no'} space, not the router's ${space}: vectors of different models are not comparable` });
      continue;
    }
    const refused = input.refuseInput?.(model);
    if (refused !== undefined) {
      dropped.push({ model: id, code: 'input', reason: refused });
      continue;
    }
    if (needed > model.contextWindow) {
      const reason = embedding ? `input limit ${model.contextWindow} < ${needed} tokens in the longest input` : `context window ${model.contextWindow} < ${needed} tokens needed`;
      dropped.push({ model: id, code: 'context_window', reason });
      continue;
    }
    if (profile.needsTools && !model.capabilities.tools) {
      dropped.push({ model: id, code: 'tools', reason: 'does not support tools' });
      continue;
    }
    if (profile.needsVision && !model.capabilities.vision) {
      dropped.push({ model: id, code: 'vision', reason: 'does not accept images' });
      continue;
    }
    const healthKey = input.healthKey?.(model) ?? model.id;
    const estimate = estimateCandidate(model, profile, health, healthKey);
    if (ceiling !== undefined && estimate.expectedCostUsd > ceiling) {
      dropped.push({ model: id, code: 'cost_ceiling', reason: `expected ${formatUsdEstimate(estimate.expectedCostUsd)} > the router's ceiling of ${formatUsdEstimate(ceiling)}` });
      continue;
    }
    const availability = health?.availability(healthKey, now);
    if (availability !== undefined && !availability.available) {
      dropped.push({ model: id, code: 'unavailable', reason: unavailableReason(availability), availableAgainAt: availability.until });
      continue;
    }
    eligible.push(estimate);
  }
  return { eligible, dropped };
}

/** The space an embedding router's vectors are in: its first embedding model's, whatever its health. */
function routerSpace(modelIds: readonly string[], catalog: ModelCatalog): string | undefined {
  for (const id of modelIds) {
    const space = catalog.get(id)?.embedding?.space;
    if (space !== undefined) return space;
  }
  return undefined;
}

function unavailableReason(availability: Availability & { available: false }): string {
  const until = new Date(availability.until).toISOString();
  switch (availability.reason) {
    case 'circuit_open':
      return `circuit open after repeated failures, until ${until}`;
    case 'probe_in_flight':
      return 'circuit half-open: another request is probing it';
    case 'provider_backoff':
      return `provider backing off (429), until ${until}`;
  }
}
