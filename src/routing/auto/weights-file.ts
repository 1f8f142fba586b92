import { readFile } from 'node:fs/promises';
import { featureCount, META_COUNT, type FeatureConfig } from './features.js';
import { OUTCOME_COUNT, type AnchorModel, type AutoRouterModel, type FamiliarityGate } from './model.js';

/**
 * The shipped weights file (weights/auto-router.json). Hashed buckets that
 * training left at zero are not stored; the others are stored as
 * delta-encoded varint indices and int16 values with one scale, both base64.
 */
export interface AutoRouterWeightsFile {
  readonly format: 'modelport.auto-router';
  readonly version: 1;
  readonly features: FeatureConfig;
  readonly classes: readonly string[];
  readonly biases: readonly number[];
  /** `OUTCOME_COUNT` weights per meta feature, in META_NAMES order. */
  readonly meta: readonly number[];
  readonly buckets: {
    readonly count: number;
    /** Base64 of LEB128 varints: the first bucket index, then the gaps between consecutive ones. */
    readonly indices: string;
    /** Base64 of little-endian int16, `OUTCOME_COUNT` per bucket; weight = value × scale. */
    readonly values: string;
    readonly scale: number;
  };
  readonly anchors: readonly [AnchorModel, AnchorModel];
  /** {@link AutoRouterModel.lengthPrior}; absent means 0. */
  readonly lengthPrior?: number;
  /** {@link AutoRouterModel.gate}; absent means no gate. */
  readonly gate?: FamiliarityGate;
  /** {@link AutoRouterModel.fallback}: `OUTCOME_COUNT` weights per meta feature and one bias per class. */
  readonly fallback?: { readonly meta: readonly number[]; readonly biases: readonly number[]; readonly shares?: readonly number[] };
  /** How the weights were made and what they scored held out, for people. */
  readonly training: Readonly<Record<string, string | number | boolean | null>>;
}

export class WeightsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WeightsFileError';
  }
}

const round = (value: number, digits: number) => Number(value.toPrecision(digits));

export interface EncodeInput {
  readonly features: FeatureConfig;
  readonly weights: Float64Array | Float32Array;
  readonly biases: Float64Array | Float32Array;
  readonly anchors: readonly [AnchorModel, AnchorModel];
  readonly classes: readonly string[];
  readonly lengthPrior?: number;
  readonly gate?: FamiliarityGate;
  readonly fallback?: { readonly weights: Float64Array | Float32Array; readonly biases: Float64Array | Float32Array; readonly shares?: Float64Array | Float32Array };
  readonly training: AutoRouterWeightsFile['training'];
}

export function encodeWeightsFile(input: EncodeInput): AutoRouterWeightsFile {
  const { weights } = input;
  const size = featureCount(input.features);
  let maxAbs = 0;
  const kept: number[] = [];
  for (let index = META_COUNT; index < size; index += 1) {
    let any = false;
    for (let c = 0; c < OUTCOME_COUNT; c += 1) {
      const w = Math.abs(weights[index * OUTCOME_COUNT + c] ?? 0);
      if (w > 0) any = true;
      if (w > maxAbs) maxAbs = w;
    }
    if (any) kept.push(index);
  }
  const scale = maxAbs === 0 ? 1 : maxAbs / 32767;
  const values = Buffer.alloc(kept.length * OUTCOME_COUNT * 2);
  const varints: number[] = [];
  let previous = 0;
  kept.forEach((index, k) => {
    let gap = index - previous;
    previous = index;
    while (gap >= 0x80) {
      varints.push((gap & 0x7f) | 0x80);
      gap >>>= 7;
    }
    varints.push(gap);
    for (let c = 0; c < OUTCOME_COUNT; c += 1) {
      values.writeInt16LE(Math.round((weights[index * OUTCOME_COUNT + c] ?? 0) / scale), (k * OUTCOME_COUNT + c) * 2);
    }
  });
  return {
    format: 'modelport.auto-router',
    version: 1,
    features: input.features,
    classes: input.classes,
    biases: Array.from(input.biases, (b) => round(b, 8)),
    meta: Array.from(weights.subarray(0, META_COUNT * OUTCOME_COUNT), (w) => round(w, 6)),
    buckets: { count: kept.length, indices: Buffer.from(varints).toString('base64'), values: values.toString('base64'), scale },
    anchors: input.anchors,
    ...(input.lengthPrior === undefined ? {} : { lengthPrior: input.lengthPrior }),
    ...(input.gate === undefined ? {} : { gate: input.gate }),
    ...(input.fallback === undefined
      ? {}
      : {
          fallback: {
            meta: Array.from(input.fallback.weights, (w) => round(w, 6)),
            biases: Array.from(input.fallback.biases, (b) => round(b, 8)),
            ...(input.fallback.shares === undefined ? {} : { shares: Array.from(input.fallback.shares, (share) => round(share, 6)) }),
          },
        }),
    training: input.training,
  };
}

/** Rebuilds the dense runtime model; throws {@link WeightsFileError} on a malformed file. */
export function decodeWeightsFile(file: AutoRouterWeightsFile): AutoRouterModel {
  if (file.format !== 'modelport.auto-router' || file.version !== 1) throw new WeightsFileError('Not a version 1 auto-router weights file.');
  const { hashBits } = file.features;
  if (!Number.isInteger(hashBits) || hashBits < 8 || hashBits > 24) throw new WeightsFileError(`Bad hashBits ${hashBits}.`);
  if (file.meta.length !== META_COUNT * OUTCOME_COUNT || file.biases.length !== OUTCOME_COUNT) {
    throw new WeightsFileError('The weights were made for other features than this version computes.');
  }
  const shares = file.fallback?.shares;
  if (
    file.fallback !== undefined &&
    (file.fallback.meta.length !== META_COUNT * OUTCOME_COUNT || file.fallback.biases.length !== OUTCOME_COUNT || (shares !== undefined && shares.length !== META_COUNT))
  ) {
    throw new WeightsFileError('The meta-only weights were made for other features than this version computes.');
  }
  const size = featureCount(file.features);
  const weights = new Float32Array(size * OUTCOME_COUNT);
  weights.set(file.meta);
  const varints = Buffer.from(file.buckets.indices, 'base64');
  const values = Buffer.from(file.buckets.values, 'base64');
  if (values.length !== file.buckets.count * OUTCOME_COUNT * 2) throw new WeightsFileError('Bucket values do not match the bucket count.');
  let offset = 0;
  let index = 0;
  for (let k = 0; k < file.buckets.count; k += 1) {
    let gap = 0;
    let shift = 0;
    for (;;) {
      const byte = varints[offset];
      if (byte === undefined) throw new WeightsFileError('Bucket indices end early.');
      offset += 1;
      gap += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) break;
    }
    index += gap;
    if (index < META_COUNT || index >= size) throw new WeightsFileError(`Bucket index ${index} out of range.`);
    for (let c = 0; c < OUTCOME_COUNT; c += 1) weights[index * OUTCOME_COUNT + c] = values.readInt16LE((k * OUTCOME_COUNT + c) * 2) * file.buckets.scale;
  }
  return {
    features: file.features,
    weights,
    biases: Float32Array.from(file.biases),
    anchors: file.anchors,
    ...(file.lengthPrior === undefined ? {} : { lengthPrior: file.lengthPrior }),
    ...(file.gate === undefined ? {} : { gate: file.gate }),
    ...(file.fallback === undefined
      ? {}
      : {
          fallback: {
            weights: Float32Array.from(file.fallback.meta),
            biases: Float32Array.from(file.fallback.biases),
            ...(shares === undefined ? {} : { shares: Float32Array.from(shares) }),
          },
        }),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumberArray = (value: unknown): value is number[] => Array.isArray(value) && value.every((item) => typeof item === 'number');

function parseAnchor(value: unknown): AnchorModel {
  if (!isRecord(value) || typeof value.name !== 'string') throw new WeightsFileError('Malformed anchor model.');
  const numbers = ['position', 'offset', 'inputPrice', 'outputPrice', 'qualityScore'] as const;
  for (const key of numbers) if (typeof value[key] !== 'number') throw new WeightsFileError(`Anchor ${value.name} has no numeric ${key}.`);
  if (value.sizeB !== undefined && typeof value.sizeB !== 'number') throw new WeightsFileError(`Anchor ${value.name} has a non-numeric sizeB.`);
  return {
    name: value.name,
    position: value.position as number,
    offset: value.offset as number,
    inputPrice: value.inputPrice as number,
    outputPrice: value.outputPrice as number,
    ...(typeof value.sizeB === 'number' ? { sizeB: value.sizeB } : {}),
    qualityScore: value.qualityScore as number,
  };
}

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function parseGate(value: unknown): FamiliarityGate {
  const optional = (key: string) => !isRecord(value) || value[key] === undefined || isFiniteNumber(value[key]);
  if (!isRecord(value) || !isFiniteNumber(value.low) || !isFiniteNumber(value.high) || !optional('threshold') || !optional('ceiling') || !optional('minShare')) {
    throw new WeightsFileError('gate must have numeric low and high (and threshold, ceiling, minShare).');
  }
  return {
    low: value.low,
    high: value.high,
    ...(isFiniteNumber(value.threshold) ? { threshold: value.threshold } : {}),
    ...(isFiniteNumber(value.ceiling) ? { ceiling: value.ceiling } : {}),
    ...(isFiniteNumber(value.minShare) ? { minShare: value.minShare } : {}),
  };
}

function parseFallback(value: unknown): NonNullable<AutoRouterWeightsFile['fallback']> {
  if (!isRecord(value) || !isNumberArray(value.meta) || !isNumberArray(value.biases) || (value.shares !== undefined && !isNumberArray(value.shares))) {
    throw new WeightsFileError('fallback must have meta and biases arrays (and a shares array).');
  }
  return { meta: value.meta, biases: value.biases, ...(value.shares === undefined ? {} : { shares: value.shares }) };
}

/** Checks the shape of a parsed weights file (e.g. the imported JSON). */
export function parseWeightsFile(value: unknown): AutoRouterWeightsFile {
  if (!isRecord(value) || value.format !== 'modelport.auto-router' || value.version !== 1) throw new WeightsFileError('Not a version 1 auto-router weights file.');
  const { features, buckets, anchors, training } = value;
  if (!isRecord(features) || !isRecord(buckets) || !Array.isArray(anchors) || anchors.length !== 2 || !isRecord(training)) {
    throw new WeightsFileError('The weights file lacks features, buckets, anchors or training.');
  }
  const config = ['hashBits', 'headChars', 'tailChars'] as const;
  for (const key of config) if (typeof features[key] !== 'number') throw new WeightsFileError(`features.${key} must be a number.`);
  if (!isNumberArray(value.biases) || !isNumberArray(value.meta) || !Array.isArray(value.classes)) throw new WeightsFileError('biases, meta and classes must be arrays.');
  if (typeof buckets.count !== 'number' || typeof buckets.indices !== 'string' || typeof buckets.values !== 'string' || typeof buckets.scale !== 'number') {
    throw new WeightsFileError('Malformed buckets.');
  }
  if (value.lengthPrior !== undefined && (typeof value.lengthPrior !== 'number' || !Number.isFinite(value.lengthPrior))) {
    throw new WeightsFileError('lengthPrior must be a number.');
  }
  const gate = value.gate === undefined ? undefined : parseGate(value.gate);
  const fallback = value.fallback === undefined ? undefined : parseFallback(value.fallback);
  const summary: Record<string, string | number | boolean | null> = {};
  for (const [key, item] of Object.entries(training)) {
    if (item === null || typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') summary[key] = item;
  }
  return {
    format: 'modelport.auto-router',
    version: 1,
    features: { hashBits: features.hashBits as number, headChars: features.headChars as number, tailChars: features.tailChars as number },
    classes: value.classes.map(String),
    biases: value.biases,
    meta: value.meta,
    buckets: { count: buckets.count, indices: buckets.indices, values: buckets.values, scale: buckets.scale },
    anchors: [parseAnchor(anchors[0]), parseAnchor(anchors[1])],
    ...(typeof value.lengthPrior === 'number' ? { lengthPrior: value.lengthPrior } : {}),
    ...(gate === undefined ? {} : { gate }),
    ...(fallback === undefined ? {} : { fallback }),
    training: summary,
  };
}

/** Reads, checks and decodes a weights file from disk (`modelport eval routing --weights`). */
export async function readWeightsFile(path: string): Promise<AutoRouterModel> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WeightsFileError(`${path} is not JSON.`);
  }
  return decodeWeightsFile(parseWeightsFile(json));
}
