import { rankByScore, type CandidateEstimate, type RoutingStrategy } from './routing-strategy.js';

/**
 * `quality_optimized`: the strongest model, by the catalog's quality rating
 * (an LMArena-style text score; owners may set their own for models they
 * declare). Score: the rating; highest first.
 */
export const qualityStrategy: RoutingStrategy = {
  name: 'quality_optimized',
  rank: (candidates) => rankByScore(candidates, 'higher-first', (candidate) => candidate.quality, (candidate, quality) => `quality ${quality} (${qualitySource(candidate)})`),
};

function qualitySource(candidate: CandidateEstimate): string {
  return candidate.model.simulated ? 'simulated rating' : 'LMArena-style rating';
}
