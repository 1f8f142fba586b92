import { createAutoPredictor } from '../auto/auto-predictor.js';
import { loadShippedAutoModel } from '../auto/shipped-model.js';
import { createAutoStrategy } from './auto-strategy.js';
import { balancedStrategy } from './balanced-strategy.js';
import { carbonStrategy } from './carbon-strategy.js';
import { costStrategy } from './cost-strategy.js';
import { latencyStrategy } from './latency-strategy.js';
import { qualityStrategy } from './quality-strategy.js';
import { isStrategyName, type RoutingStrategy, type StrategyName } from './routing-strategy.js';

/** Every strategy by the name a router stores. */
export type StrategyRegistry = Readonly<Record<StrategyName, RoutingStrategy>>;

/**
 * The shipped strategies, with any replaced (e.g. `auto` backed by its
 * predictor, or a latency strategy with other exploration settings).
 */
export function createStrategyRegistry(overrides: Partial<StrategyRegistry> = {}): StrategyRegistry {
  return {
    cost_optimized: costStrategy,
    latency_optimized: latencyStrategy,
    quality_optimized: qualityStrategy,
    carbon_optimized: carbonStrategy,
    balanced: balancedStrategy,
    // The shipped weights are decoded on the first `auto` decision, so nothing pays for them unless a router uses auto.
    auto: createAutoStrategy(() => createAutoPredictor(loadShippedAutoModel())),
    ...overrides,
  };
}

export const defaultStrategies: StrategyRegistry = createStrategyRegistry();

/** The strategy a router names; `balanced` for a name this version does not know (a newer server wrote it). */
export function strategyFor(registry: StrategyRegistry, name: string): RoutingStrategy {
  return isStrategyName(name) ? registry[name] : registry.balanced;
}
