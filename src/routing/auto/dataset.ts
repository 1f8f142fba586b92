import { readFile } from 'node:fs/promises';

/**
 * A routing data set in the format of ../shared/data/routing/mmlu.jsonl:
 * one `{"prompt": "...", "subject"?: "...", "scores": {"<model>": 0..1}}` a line.
 * Prompts and scores are kept apart so the predictor is handed prompts only.
 */
export interface RoutingDataset {
  readonly prompts: readonly string[];
  readonly subjects: readonly (string | undefined)[];
  /** Model name → its score on each prompt, in prompt order. */
  readonly scores: ReadonlyMap<string, Float64Array>;
}

/** A file that is not in the expected format; the message names the file and line. */
export class RoutingDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RoutingDataError';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses JSON lines; blank lines are skipped. Every line must score the same models. */
export function parseRoutingDataset(text: string, source: string): RoutingDataset {
  const prompts: string[] = [];
  const subjects: (string | undefined)[] = [];
  const columns = new Map<string, number[]>();
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${source} line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new RoutingDataError(`${where} is not valid JSON.`);
    }
    if (!isRecord(value) || typeof value.prompt !== 'string') throw new RoutingDataError(`${where} has no "prompt" string.`);
    if (value.subject !== undefined && typeof value.subject !== 'string') throw new RoutingDataError(`${where}: "subject" must be a string.`);
    const scores = value.scores;
    if (!isRecord(scores) || Object.keys(scores).length === 0) throw new RoutingDataError(`${where} has no "scores" object.`);
    if (prompts.length === 0) for (const model of Object.keys(scores)) columns.set(model, []);
    for (const [model, column] of columns) {
      const score = scores[model];
      if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) {
        throw new RoutingDataError(`${where}: "scores" needs a number from 0 to 1 for "${model}", as on the first line.`);
      }
      column.push(score);
    }
    if (Object.keys(scores).length !== columns.size) throw new RoutingDataError(`${where} scores other models than the first line.`);
    prompts.push(value.prompt);
    subjects.push(value.subject);
  });
  if (prompts.length === 0) throw new RoutingDataError(`${source} has no prompts.`);
  const scores = new Map([...columns].map(([model, column]) => [model, Float64Array.from(column)]));
  return { prompts, subjects, scores };
}

export async function readRoutingDataset(path: string): Promise<RoutingDataset> {
  return parseRoutingDataset(await readFile(path, 'utf8'), path);
}

/** One entry of MODELS.json. */
export interface PricedModel {
  readonly name: string;
  /** USD per million prompt tokens. */
  readonly inputPrice: number;
  /** USD per million completion tokens. */
  readonly outputPrice: number;
  /** Parameters in billions, from `size` ("8B", "8x7B", "1.5T"), if given. */
  readonly sizeB?: number;
}

const SIZE_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*(?:x\s*(\d+(?:\.\d+)?))?\s*([KMBT])\s*$/i;
const SIZE_UNITS: Readonly<Record<string, number>> = { K: 1e-6, M: 1e-3, B: 1, T: 1e3 };

/** "8B" → 8, "8x7B" → 56, "1.5T" → 1500; undefined if not in that form. */
export function parseSize(size: string): number | undefined {
  const match = SIZE_PATTERN.exec(size);
  if (match === null) return undefined;
  const count = Number(match[1]) * (match[2] === undefined ? 1 : Number(match[2]));
  const unit = SIZE_UNITS[(match[3] ?? 'B').toUpperCase()] ?? 1;
  return count * unit;
}

/** Parses MODELS.json: `{"<model>": {"input_price": n, "output_price": n, "size"?: "8B"}}`. */
export function parseModelsFile(text: string, source: string): PricedModel[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RoutingDataError(`${source} is not valid JSON.`);
  }
  if (!isRecord(value) || Object.keys(value).length === 0) throw new RoutingDataError(`${source} must map model names to their prices.`);
  return Object.entries(value).map(([name, entry]): PricedModel => {
    if (!isRecord(entry)) throw new RoutingDataError(`${source}: "${name}" must be an object with input_price and output_price.`);
    const inputPrice = entry.input_price;
    const outputPrice = entry.output_price;
    if (typeof inputPrice !== 'number' || typeof outputPrice !== 'number' || !(inputPrice >= 0) || !(outputPrice >= 0)) {
      throw new RoutingDataError(`${source}: "${name}" needs input_price and output_price, USD per million tokens, at least 0.`);
    }
    if (entry.size === undefined) return { name, inputPrice, outputPrice };
    const sizeB = typeof entry.size === 'string' ? parseSize(entry.size) : typeof entry.size === 'number' ? entry.size : undefined;
    if (sizeB === undefined || !(sizeB > 0)) throw new RoutingDataError(`${source}: "${name}" has a size that is not like "8B", "8x7B" or "1.5T".`);
    return { name, inputPrice, outputPrice, sizeB };
  });
}

export async function readModelsFile(path: string): Promise<PricedModel[]> {
  return parseModelsFile(await readFile(path, 'utf8'), path);
}
