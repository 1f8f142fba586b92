import type { ModelCatalog, ModelInfo } from '../../catalog/catalog.js';
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
 * 2. `context_window`: prompt tokens plus `max_tokens` exceed the model's context window.
 * 3. `tools` / `vision`: the request sends tools or images the model does not take.
 * 4. `cost_ceiling`: the expected cost exceeds the router's `maxCostPerRequestUsd`.
 * 5. `unavailable`: health says the model's circuit is open (or half-open with its one probe
 *    already out) or its provider asked us to back off (429).
 *
 * Health comes last on purpose: a model dropped as unavailable passed every
 * other check, so it could serve the request once it recovers (a 503, not a 400).
 */

export type DropCode = 'unknown_model' | 'not_configured' | 'context_window' | 'tools' | 'vision' | 'cost_ceiling' | 'unavailable';

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
  const needed = profile.promptTokens + (profile.maxTokens ?? 0);
  const ceiling = settings.maxCostPerRequestUsd;
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
    if (needed > model.contextWindow) {
      dropped.push({ model: id, code: 'context_window', reason: `context window ${model.contextWindow} < ${needed} tokens needed` });
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
