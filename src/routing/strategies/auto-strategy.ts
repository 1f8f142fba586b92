import { balancedStrategy } from './balanced-strategy.js';
import type { RoutingStrategy } from './routing-strategy.js';

/**
 * `auto`: prompt-aware routing. WAITING FOR THE PREDICTOR (src/routing/auto/):
 * until it is wired in, `auto` ranks exactly like `balanced` with the router's
 * weights, says so in every reason, and reports no `predictedQuality`.
 *
 * The predictor plugs in here: `createAutoStrategy(predictor-backed strategy)`
 * (it gets the request and `settings.qualityTarget` through the context), and
 * strategy-registry.ts takes it as an override, so nothing else changes.
 */
export function createAutoStrategy(delegate: RoutingStrategy = balancedStrategy): RoutingStrategy {
  return {
    name: 'auto',
    rank: (candidates, context) =>
      delegate.rank(candidates, context).map((entry) => ({ ...entry, reason: `${entry.reason}; auto ranks as ${delegate.name} until its predictor is wired in` })),
  };
}

export const autoStrategy: RoutingStrategy = createAutoStrategy();
