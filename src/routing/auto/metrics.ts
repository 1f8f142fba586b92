/**
 * How routers are scored (../shared/data/routing/README.md).
 *
 * Two models, RouteLLM's protocol: a router gives every prompt a score (higher
 * means "send to the strong model"); the thresholds are the 11 edges of 10
 * equal-count bins of the scores (pandas `qcut`), a prompt goes to the strong
 * model when its score is ≥ the threshold, except at the top edge where it
 * must be > (0 % strong calls); the lowest edge sends every prompt (100 %).
 * APGR and CPT(x %) are read off the piecewise-linear curve of accuracy
 * against the share of strong calls.
 *
 * Any number of models, RouterBench's protocol: sweep λ, send each prompt to
 * argmax over models of (predicted quality − λ·cost), take the non-decreasing
 * concave hull of (total cost, mean quality), and AIQ = its area over the cost
 * range divided by that range.
 */

export interface CurvePoint {
  /** Share of prompts sent to the strong model, 0..1. */
  readonly share: number;
  readonly accuracy: number;
}

/** Linear-interpolation quantile of sorted values (numpy's and pandas' default). */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const position = q * (n - 1);
  const lower = Math.floor(position);
  const upper = Math.min(lower + 1, n - 1);
  const fraction = position - lower;
  const low = sorted[lower] ?? NaN;
  return low + ((sorted[upper] ?? NaN) - low) * fraction;
}

export const THRESHOLD_BINS = 10;

/** Accuracy against strong-call share at RouteLLM's thresholds, sorted by share. */
export function thresholdCurve(scores: ArrayLike<number>, weak: ArrayLike<number>, strong: ArrayLike<number>): CurvePoint[] {
  const n = scores.length;
  const sorted = Float64Array.from(scores).sort();
  const points: CurvePoint[] = [];
  for (let edge = 0; edge <= THRESHOLD_BINS; edge += 1) {
    const threshold = quantileOfSorted(sorted, edge / THRESHOLD_BINS);
    const top = edge === THRESHOLD_BINS;
    let calls = 0;
    let right = 0;
    for (let i = 0; i < n; i += 1) {
      const score = scores[i] ?? 0;
      const toStrong = top ? score > threshold : score >= threshold;
      if (toStrong) calls += 1;
      right += toStrong ? (strong[i] ?? 0) : (weak[i] ?? 0);
    }
    points.push({ share: calls / n, accuracy: right / n });
  }
  return points.sort((a, b) => a.share - b.share);
}

/** Trapezoidal area under the curve over its share range. */
export function areaUnderCurve(points: readonly CurvePoint[]): number {
  let area = 0;
  for (let k = 1; k < points.length; k += 1) {
    const a = points[k - 1] as CurvePoint;
    const b = points[k] as CurvePoint;
    area += ((b.share - a.share) * (a.accuracy + b.accuracy)) / 2;
  }
  return area;
}

/** (AUC − weak accuracy) / (strong accuracy − weak accuracy): 0.5 is random routing. */
export function averagePerformanceGapRecovered(points: readonly CurvePoint[], weakAccuracy: number, strongAccuracy: number): number {
  const first = points[0]?.share ?? 0;
  const last = points[points.length - 1]?.share ?? 0;
  const span = last - first;
  return (areaUnderCurve(points) - weakAccuracy * span) / ((strongAccuracy - weakAccuracy) * span);
}

/**
 * CPT(x): the smallest share of strong calls whose accuracy recovers `fraction`
 * of the gap between weak and strong accuracy, interpolating linearly between
 * points; undefined if the curve never gets there.
 */
export function callsToRecover(points: readonly CurvePoint[], fraction: number, weakAccuracy: number, strongAccuracy: number): number | undefined {
  const target = weakAccuracy + fraction * (strongAccuracy - weakAccuracy);
  const epsilon = 1e-12;
  for (let k = 0; k < points.length; k += 1) {
    const point = points[k] as CurvePoint;
    if (point.accuracy >= target - epsilon) {
      const previous = points[k - 1];
      if (previous === undefined || point.accuracy === previous.accuracy) return point.share;
      return previous.share + ((target - previous.accuracy) / (point.accuracy - previous.accuracy)) * (point.share - previous.share);
    }
  }
  return undefined;
}

export interface TwoModelMetrics {
  readonly apgr: number;
  readonly cpt50: number | undefined;
  readonly cpt80: number | undefined;
  readonly curve: readonly CurvePoint[];
}

export function twoModelMetrics(scores: ArrayLike<number>, weak: ArrayLike<number>, strong: ArrayLike<number>): TwoModelMetrics {
  const weakAccuracy = mean(weak);
  const strongAccuracy = mean(strong);
  const curve = thresholdCurve(scores, weak, strong);
  return {
    apgr: averagePerformanceGapRecovered(curve, weakAccuracy, strongAccuracy),
    cpt50: callsToRecover(curve, 0.5, weakAccuracy, strongAccuracy),
    cpt80: callsToRecover(curve, 0.8, weakAccuracy, strongAccuracy),
    curve,
  };
}

export function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i += 1) sum += values[i] ?? 0;
  return values.length === 0 ? NaN : sum / values.length;
}

export interface CostPoint {
  /** Total cost of the prompts, USD. */
  readonly cost: number;
  /** Mean quality (accuracy) over the prompts. */
  readonly quality: number;
}

/**
 * A prompts × models table, row-major: `values[prompt * models + model]`.
 */
export interface Table {
  readonly prompts: number;
  readonly models: number;
  readonly values: Float64Array;
}

/**
 * Routes every prompt to argmax over models of (predicted − λ·cost) (ties to
 * the cheaper model, then the first) and returns (total cost, mean actual
 * quality) for each λ.
 */
export function lambdaSweep(predicted: Table, cost: Table, actual: Table, lambdas: readonly number[]): CostPoint[] {
  const { prompts, models } = predicted;
  return lambdas.map((lambda) => {
    let totalCost = 0;
    let totalQuality = 0;
    for (let p = 0; p < prompts; p += 1) {
      const row = p * models;
      let best = row;
      let bestValue = -Infinity;
      for (let m = row; m < row + models; m += 1) {
        const c = cost.values[m] ?? 0;
        const value = lambda === Infinity ? -c : (predicted.values[m] ?? 0) - lambda * c;
        if (value > bestValue || (value === bestValue && c < (cost.values[best] ?? 0))) {
          best = m;
          bestValue = value;
        }
      }
      totalCost += cost.values[best] ?? 0;
      totalQuality += actual.values[best] ?? 0;
    }
    return { cost: totalCost, quality: totalQuality / prompts };
  });
}

/**
 * λ values for {@link lambdaSweep}: 0, a log grid of `perDecade` points a
 * decade over 8 decades centred on 1 / (the mean cost spread per prompt),
 * and ∞ (always the cheapest model).
 */
export function lambdaGrid(cost: Table, perDecade = 40): number[] {
  let spread = 0;
  for (let p = 0; p < cost.prompts; p += 1) {
    let low = Infinity;
    let high = -Infinity;
    for (let m = 0; m < cost.models; m += 1) {
      const c = cost.values[p * cost.models + m] ?? 0;
      low = Math.min(low, c);
      high = Math.max(high, c);
    }
    spread += high - low;
  }
  spread = spread / Math.max(1, cost.prompts) || 1;
  const lambdas = [0];
  for (let k = -4 * perDecade; k <= 4 * perDecade; k += 1) lambdas.push(10 ** (k / perDecade) / spread);
  lambdas.push(Infinity);
  return lambdas;
}

/** The non-decreasing upper concave hull of the points, sorted by cost. */
export function nonDecreasingHull(points: readonly CostPoint[]): CostPoint[] {
  const sorted = [...points].sort((a, b) => a.cost - b.cost || b.quality - a.quality);
  const hull: CostPoint[] = [];
  for (const point of sorted) {
    // Non-decreasing: a point no better than one at lower cost adds nothing.
    const top = hull[hull.length - 1];
    if (top !== undefined && point.quality <= top.quality) continue;
    while (hull.length >= 2) {
      const a = hull[hull.length - 2] as CostPoint;
      const b = hull[hull.length - 1] as CostPoint;
      // Drop b when it lies on or below the segment from a to the new point.
      const cross = (b.cost - a.cost) * (point.quality - a.quality) - (b.quality - a.quality) * (point.cost - a.cost);
      if (cross >= 0) hull.pop();
      else break;
    }
    hull.push(point);
  }
  return hull;
}

/** The hull's quality at `cost`: linear between its points, flat after the last, the first point's before it. */
export function hullQualityAt(hull: readonly CostPoint[], cost: number): number {
  const first = hull[0];
  if (first === undefined) return NaN;
  if (cost <= first.cost) return first.quality;
  for (let k = 1; k < hull.length; k += 1) {
    const b = hull[k] as CostPoint;
    if (cost <= b.cost) {
      const a = hull[k - 1] as CostPoint;
      return a.quality + ((cost - a.cost) / (b.cost - a.cost)) * (b.quality - a.quality);
    }
  }
  return (hull[hull.length - 1] as CostPoint).quality;
}

/** AIQ: the area under the hull between `low` and `high` cost, divided by `high − low`. */
export function averageImprovementInQuality(hull: readonly CostPoint[], low: number, high: number): number {
  if (!(high > low)) return hullQualityAt(hull, low);
  const knots = [low, ...hull.map((point) => point.cost).filter((cost) => cost > low && cost < high), high];
  let area = 0;
  for (let k = 1; k < knots.length; k += 1) {
    const a = knots[k - 1] as number;
    const b = knots[k] as number;
    area += ((b - a) * (hullQualityAt(hull, a) + hullQualityAt(hull, b))) / 2;
  }
  return area / (high - low);
}

/** The lowest cost at which the hull reaches `quality`, or undefined if it never does. */
export function costToReach(hull: readonly CostPoint[], quality: number): number | undefined {
  const epsilon = 1e-12;
  for (let k = 0; k < hull.length; k += 1) {
    const point = hull[k] as CostPoint;
    if (point.quality >= quality - epsilon) {
      const previous = hull[k - 1];
      if (previous === undefined) return point.cost;
      return previous.cost + ((quality - previous.quality) / (point.quality - previous.quality)) * (point.cost - previous.cost);
    }
  }
  return undefined;
}
