/**
 * Limited-memory BFGS with a backtracking (Armijo) line search, for the
 * smooth, convex losses the `auto` router is trained with. Deterministic:
 * the same start and objective give the same result.
 */

/** Writes the gradient at `x` into `gradient` and returns the loss. */
export type Objective = (x: Float64Array, gradient: Float64Array) => number;

export interface LbfgsOptions {
  /** @default 200 */
  readonly maxIterations?: number;
  /** Pairs of correction vectors kept. @default 8 */
  readonly memory?: number;
  /** Stop when the relative loss decrease over an iteration is below this. @default 1e-7 */
  readonly tolerance?: number;
}

export interface LbfgsResult {
  readonly loss: number;
  readonly iterations: number;
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

/** Minimises `objective` starting from `x`, which it updates in place. */
export function minimizeLbfgs(objective: Objective, x: Float64Array, options: LbfgsOptions = {}): LbfgsResult {
  const steps = minimizeLbfgsSteps(objective, x, options);
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/**
 * {@link minimizeLbfgs} that pauses after every evaluation of the objective, so a caller can spread a long
 * fit over short slices of the event loop.
 */
export function* minimizeLbfgsSteps(objective: Objective, x: Float64Array, options: LbfgsOptions = {}): Generator<void, LbfgsResult> {
  const n = x.length;
  const memory = options.memory ?? 8;
  const maxIterations = options.maxIterations ?? 200;
  const tolerance = options.tolerance ?? 1e-7;
  const s: Float64Array[] = [];
  const y: Float64Array[] = [];
  const rho: number[] = [];
  const alpha = new Float64Array(memory);
  let gradient = new Float64Array(n);
  let nextGradient = new Float64Array(n);
  const direction = new Float64Array(n);
  const candidate = new Float64Array(n);
  let loss = objective(x, gradient);
  yield;
  let iteration = 0;

  for (; iteration < maxIterations; iteration += 1) {
    // Two-loop recursion: direction = −H·gradient.
    direction.set(gradient);
    for (let k = s.length - 1; k >= 0; k -= 1) {
      const sk = s[k] as Float64Array;
      const a = (rho[k] ?? 0) * dot(sk, direction);
      alpha[k] = a;
      const yk = y[k] as Float64Array;
      for (let i = 0; i < n; i += 1) direction[i] = (direction[i] ?? 0) - a * (yk[i] ?? 0);
    }
    const last = s.length - 1;
    const scale = last >= 0 ? dot(s[last] as Float64Array, y[last] as Float64Array) / dot(y[last] as Float64Array, y[last] as Float64Array) : 1 / Math.max(1, Math.sqrt(dot(gradient, gradient)));
    for (let i = 0; i < n; i += 1) direction[i] = (direction[i] ?? 0) * scale;
    for (let k = 0; k < s.length; k += 1) {
      const b = (rho[k] ?? 0) * dot(y[k] as Float64Array, direction);
      const sk = s[k] as Float64Array;
      const coefficient = (alpha[k] ?? 0) - b;
      for (let i = 0; i < n; i += 1) direction[i] = (direction[i] ?? 0) + coefficient * (sk[i] ?? 0);
    }
    for (let i = 0; i < n; i += 1) direction[i] = -(direction[i] ?? 0);

    let slope = dot(gradient, direction);
    if (slope >= 0) {
      // Not a descent direction (curvature went bad): restart from steepest descent.
      s.length = 0;
      y.length = 0;
      rho.length = 0;
      for (let i = 0; i < n; i += 1) direction[i] = -(gradient[i] ?? 0);
      slope = dot(gradient, direction);
    }

    let step = 1;
    let nextLoss = Infinity;
    for (let attempt = 0; attempt < 30; attempt += 1) {
      for (let i = 0; i < n; i += 1) candidate[i] = (x[i] ?? 0) + step * (direction[i] ?? 0);
      nextLoss = objective(candidate, nextGradient);
      yield;
      if (nextLoss <= loss + 1e-4 * step * slope) break;
      step *= 0.5;
    }
    if (!(nextLoss < loss)) break;

    const sNew = new Float64Array(n);
    const yNew = new Float64Array(n);
    for (let i = 0; i < n; i += 1) {
      sNew[i] = (candidate[i] ?? 0) - (x[i] ?? 0);
      yNew[i] = (nextGradient[i] ?? 0) - (gradient[i] ?? 0);
    }
    const sy = dot(sNew, yNew);
    if (sy > 1e-12) {
      if (s.length === memory) {
        s.shift();
        y.shift();
        rho.shift();
      }
      s.push(sNew);
      y.push(yNew);
      rho.push(1 / sy);
    }
    x.set(candidate);
    [gradient, nextGradient] = [nextGradient, gradient];
    const decrease = (loss - nextLoss) / Math.max(1e-12, Math.abs(loss));
    loss = nextLoss;
    if (decrease < tolerance) {
      iteration += 1;
      break;
    }
  }
  return { loss, iterations: iteration };
}
