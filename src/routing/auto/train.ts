import { createFeatureBuffer, extractFeatures, featureCount, META_COUNT, type FeatureConfig } from './features.js';
import { minimizeLbfgs } from './lbfgs.js';
import { OUTCOME_COUNT } from './model.js';

/** The features of many prompts, in compressed sparse rows. */
export interface FeatureMatrix {
  readonly config: FeatureConfig;
  readonly rows: number;
  /** Row r's hashed buckets are `columns[rowStart[r] .. rowStart[r+1]-1]`. */
  readonly rowStart: Int32Array;
  readonly columns: Int32Array;
  /** The shared value of row r's text features. */
  readonly textValue: Float32Array;
  /** Row-major dense meta features, `META_COUNT` per row. */
  readonly meta: Float32Array;
}

export function buildFeatureMatrix(prompts: readonly string[], config: FeatureConfig): FeatureMatrix {
  const buffer = createFeatureBuffer(config);
  const rowStart = new Int32Array(prompts.length + 1);
  const textValue = new Float32Array(prompts.length);
  const meta = new Float32Array(prompts.length * META_COUNT);
  const chunks: Int32Array[] = [];
  let total = 0;
  prompts.forEach((prompt, row) => {
    extractFeatures(prompt, config, buffer);
    chunks.push(buffer.textIndices.slice(0, buffer.textCount));
    total += buffer.textCount;
    rowStart[row + 1] = total;
    textValue[row] = buffer.textValue;
    meta.set(buffer.meta, row * META_COUNT);
  });
  const columns = new Int32Array(total);
  chunks.forEach((chunk, row) => columns.set(chunk, rowStart[row] ?? 0));
  return { config, rows: prompts.length, rowStart, columns, textValue, meta };
}

/** Outcomes of the two anchor models on each training prompt (1 right, 0 wrong; fractions allowed). */
export interface AnchorLabels {
  readonly weak: Float64Array;
  readonly strong: Float64Array;
}

/**
 * The joint outcomes of the two anchors, the classes of the softmax:
 * both wrong, only the strong one right, only the weak one right, both right.
 */
export const OUTCOME_CLASSES = ['both-wrong', 'strong-only', 'weak-only', 'both-right'] as const;

export interface TrainOptions {
  /** L2 penalty on the hashed text weights. */
  readonly penalty: number;
  /** L2 penalty on the dense meta feature weights. @default penalty */
  readonly metaPenalty?: number;
  /** Buckets seen in fewer training prompts than this are left at zero (pruned). @default 3 */
  readonly minPrompts?: number;
  /** @default 300 */
  readonly maxIterations?: number;
}

export interface TrainedWeights {
  /** `OUTCOME_COUNT` weights per feature index (meta first, then buckets), class-minor. */
  readonly weights: Float64Array;
  /** One bias per class. */
  readonly biases: Float64Array;
  readonly loss: number;
  readonly iterations: number;
}

/** Rows restricted to `rowsUsed` and to buckets seen in at least `minPrompts` of them. */
function selectTraining(matrix: FeatureMatrix, rowsUsed: readonly number[], minPrompts: number): { rowStart: Int32Array; columns: Int32Array } {
  const size = featureCount(matrix.config);
  const seen = new Int32Array(size);
  const lastRow = new Int32Array(size).fill(-1);
  for (const row of rowsUsed) {
    for (let k = matrix.rowStart[row] ?? 0; k < (matrix.rowStart[row + 1] ?? 0); k += 1) {
      const column = matrix.columns[k] ?? 0;
      if (lastRow[column] !== row) {
        lastRow[column] = row;
        seen[column] = (seen[column] ?? 0) + 1;
      }
    }
  }
  const rowStart = new Int32Array(rowsUsed.length + 1);
  const kept: number[] = [];
  rowsUsed.forEach((row, index) => {
    for (let k = matrix.rowStart[row] ?? 0; k < (matrix.rowStart[row + 1] ?? 0); k += 1) {
      const column = matrix.columns[k] ?? 0;
      if ((seen[column] ?? 0) >= minPrompts) kept.push(column);
    }
    rowStart[index + 1] = kept.length;
  });
  return { rowStart, columns: Int32Array.from(kept) };
}

/** Class probabilities of each training row from the anchors' outcomes (independent if fractional). */
function classTargets(labels: AnchorLabels, rowsUsed: readonly number[]): Float64Array {
  const targets = new Float64Array(rowsUsed.length * OUTCOME_COUNT);
  rowsUsed.forEach((row, index) => {
    const weak = labels.weak[row] ?? 0;
    const strong = labels.strong[row] ?? 0;
    const at = index * OUTCOME_COUNT;
    targets[at] = (1 - weak) * (1 - strong);
    targets[at + 1] = (1 - weak) * strong;
    targets[at + 2] = weak * (1 - strong);
    targets[at + 3] = weak * strong;
  });
  return targets;
}

/**
 * Fits a softmax over the anchors' joint outcome ({@link OUTCOME_CLASSES}) by
 * L2-penalised maximum likelihood, with L-BFGS from zero: deterministic.
 */
export function trainJointOutcomes(matrix: FeatureMatrix, labels: AnchorLabels, rowsUsed: readonly number[], options: TrainOptions): TrainedWeights {
  const { rowStart, columns } = selectTraining(matrix, rowsUsed, options.minPrompts ?? 3);
  const targets = classTargets(labels, rowsUsed);
  const K = OUTCOME_COUNT;
  const weightCount = K * featureCount(matrix.config);
  const n = rowsUsed.length;
  const penalty = options.penalty;
  const metaPenalty = options.metaPenalty ?? penalty;
  const logits = new Float64Array(K);
  const residual = new Float64Array(K);

  const objective = (x: Float64Array, gradient: Float64Array): number => {
    gradient.fill(0);
    let loss = 0;
    for (let index = 0; index < n; index += 1) {
      const row = rowsUsed[index] ?? 0;
      const value = matrix.textValue[row] ?? 0;
      const from = rowStart[index] ?? 0;
      const to = rowStart[index + 1] ?? 0;
      logits.fill(0);
      for (let k = from; k < to; k += 1) {
        const at = (columns[k] ?? 0) * K;
        for (let c = 0; c < K; c += 1) logits[c] = (logits[c] ?? 0) + (x[at + c] ?? 0);
      }
      const metaAt = row * META_COUNT;
      let max = -Infinity;
      for (let c = 0; c < K; c += 1) {
        let z = (logits[c] ?? 0) * value + (x[weightCount + c] ?? 0);
        for (let j = 0; j < META_COUNT; j += 1) {
          const v = matrix.meta[metaAt + j] ?? 0;
          if (v !== 0) z += v * (x[j * K + c] ?? 0);
        }
        logits[c] = z;
        if (z > max) max = z;
      }
      let sum = 0;
      for (let c = 0; c < K; c += 1) sum += Math.exp((logits[c] ?? 0) - max);
      const logSum = max + Math.log(sum);
      for (let c = 0; c < K; c += 1) {
        const target = targets[index * K + c] ?? 0;
        if (target > 0) loss -= target * ((logits[c] ?? 0) - logSum);
        residual[c] = (Math.exp((logits[c] ?? 0) - logSum) - target) / n;
        gradient[weightCount + c] = (gradient[weightCount + c] ?? 0) + (residual[c] ?? 0);
      }
      for (let k = from; k < to; k += 1) {
        const at = (columns[k] ?? 0) * K;
        for (let c = 0; c < K; c += 1) gradient[at + c] = (gradient[at + c] ?? 0) + (residual[c] ?? 0) * value;
      }
      for (let j = 0; j < META_COUNT; j += 1) {
        const v = matrix.meta[metaAt + j] ?? 0;
        if (v !== 0) for (let c = 0; c < K; c += 1) gradient[j * K + c] = (gradient[j * K + c] ?? 0) + (residual[c] ?? 0) * v;
      }
    }
    loss /= n;
    for (let i = 0; i < weightCount; i += 1) {
      const w = x[i] ?? 0;
      const lambda = i < META_COUNT * K ? metaPenalty : penalty;
      loss += 0.5 * lambda * w * w;
      gradient[i] = (gradient[i] ?? 0) + lambda * w;
    }
    return loss;
  };

  const x = new Float64Array(weightCount + K);
  const result = minimizeLbfgs(objective, x, { maxIterations: options.maxIterations ?? 300 });
  return { weights: x.subarray(0, weightCount), biases: x.slice(weightCount), loss: result.loss, iterations: result.iterations };
}

/**
 * The meta-only softmax an unfamiliar prompt falls back on (AutoRouterModel.fallback): the same fit with
 * every text feature dropped. Returns `OUTCOME_COUNT` weights per meta feature and the biases.
 */
export function trainMetaOnly(
  matrix: FeatureMatrix,
  labels: AnchorLabels,
  rowsUsed: readonly number[],
  options: TrainOptions,
  /** The meta features it may use, by index; the others are left at zero. @default all */
  keep?: readonly number[],
): TrainedWeights {
  let used = matrix;
  if (keep !== undefined) {
    const meta = new Float32Array(matrix.meta.length);
    for (let row = 0; row < matrix.rows; row += 1) for (const j of keep) meta[row * META_COUNT + j] = matrix.meta[row * META_COUNT + j] ?? 0;
    used = { ...matrix, meta };
  }
  const trained = trainJointOutcomes(used, labels, rowsUsed, { ...options, minPrompts: Number.POSITIVE_INFINITY });
  return { ...trained, weights: trained.weights.slice(0, META_COUNT * OUTCOME_COUNT) };
}

/**
 * Per meta feature, the share of the used rows that have it, or 1 for a feature that is not 0/1 in them
 * (lengths and the like are never "unseen"): MetaOnlyWeights.shares.
 */
export function metaShares(matrix: FeatureMatrix, rowsUsed: readonly number[]): Float64Array {
  const shares = new Float64Array(META_COUNT);
  const binary = new Array<boolean>(META_COUNT).fill(true);
  for (const row of rowsUsed) {
    for (let j = 0; j < META_COUNT; j += 1) {
      const value = matrix.meta[row * META_COUNT + j] ?? 0;
      if (value !== 0) shares[j] = (shares[j] ?? 0) + 1;
      if (value !== 0 && value !== 1) binary[j] = false;
    }
  }
  for (let j = 0; j < META_COUNT; j += 1) shares[j] = binary[j] === true && rowsUsed.length > 0 ? (shares[j] ?? 0) / rowsUsed.length : 1;
  return shares;
}
