/**
 * The predictor design a leave-one-domain-out run measures, from `--design`:
 * one JSON object, or an array of them to compare several in one run.
 *
 *   {"name": "wide", "gate": {"low": 0.2, "high": 0.6, "threshold": 0.05}, "fit": {"penalties": ["Infinity", 100, 10], "seRule": 0}}
 *
 * `gate`: the familiarity gate (model.ts FamiliarityGate); null = no gate; absent = the weights' own.
 * `fit`: router-fit.ts FitOptions; "Infinity" (or null) in `penalties` means intercept only.
 */
import type { FamiliarityGate } from '../src/routing/auto/model.js';
import type { FitOptions } from '../src/routing/auto/router-fit.js';

export interface LodoDesign {
  readonly name: string;
  /** undefined: the weights' own gate; null: none. */
  readonly gate: FamiliarityGate | null | undefined;
  readonly fit: FitOptions;
  /**
   * What an unfamiliar prompt falls back on: the weights' own meta-only softmax, one over prompt length alone,
   * or the training's mean outcome (plus the length prior). @default "meta"
   */
  readonly fallback?: 'meta' | 'length' | 'prior';
}

export const DEFAULT_DESIGN: LodoDesign = { name: 'default', gate: undefined, fit: {} };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const FIT_NUMBERS = ['interceptPriorSd', 'folds', 'seed', 'seRule', 'maxLabels', 'cvRows', 'minLabelsForWeights', 'maxIterations'] as const;

function parseGate(value: unknown, where: string): FamiliarityGate | null | undefined {
  if (value === undefined || value === null) return value;
  if (!isRecord(value) || typeof value.low !== 'number' || typeof value.high !== 'number') throw new Error(`${where}: "gate" needs numbers "low" and "high", or null`);
  if (value.threshold !== undefined && typeof value.threshold !== 'number') throw new Error(`${where}: "gate.threshold" must be a number`);
  for (const key of ['ceiling', 'minShare'] as const) if (value[key] !== undefined && typeof value[key] !== 'number') throw new Error(`${where}: "gate.${key}" must be a number`);
  return {
    low: value.low,
    high: value.high,
    ...(typeof value.threshold === 'number' ? { threshold: value.threshold } : {}),
    ...(typeof value.ceiling === 'number' ? { ceiling: value.ceiling } : {}),
    ...(typeof value.minShare === 'number' ? { minShare: value.minShare } : {}),
  };
}

function parseFit(value: unknown, where: string): FitOptions {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new Error(`${where}: "fit" must be an object of router-fit options`);
  const fit: Record<string, unknown> = {};
  for (const key of FIT_NUMBERS) {
    const item = value[key];
    if (item === undefined) continue;
    if (typeof item !== 'number' || !Number.isFinite(item)) throw new Error(`${where}: "fit.${key}" must be a number`);
    fit[key] = item;
  }
  if (value.penalties !== undefined) {
    if (!Array.isArray(value.penalties) || value.penalties.length === 0) throw new Error(`${where}: "fit.penalties" must be a non-empty array`);
    fit.penalties = value.penalties.map((item: unknown) => {
      if (item === null || item === 'Infinity') return Number.POSITIVE_INFINITY;
      if (typeof item !== 'number' || !(item > 0)) throw new Error(`${where}: "fit.penalties" takes numbers above 0, or "Infinity"`);
      return item;
    });
  }
  if (value.calibratePrior !== undefined) {
    if (typeof value.calibratePrior !== 'boolean') throw new Error(`${where}: "fit.calibratePrior" must be true or false`);
    fit.calibratePrior = value.calibratePrior;
  }
  if (value.gaplessTarget !== undefined) {
    if (typeof value.gaplessTarget !== 'boolean') throw new Error(`${where}: "fit.gaplessTarget" must be true or false`);
    fit.gaplessTarget = value.gaplessTarget;
  }
  const unknown = Object.keys(value).filter((key) => key !== 'penalties' && key !== 'gaplessTarget' && key !== 'calibratePrior' && !(FIT_NUMBERS as readonly string[]).includes(key));
  if (unknown.length > 0) throw new Error(`${where}: unknown fit option(s) ${unknown.join(', ')}`);
  return fit as FitOptions;
}

/** Parses `--design`; no value gives the default design. */
export function parseDesigns(text: string | undefined): LodoDesign[] {
  if (text === undefined) return [DEFAULT_DESIGN];
  const value: unknown = JSON.parse(text);
  const list = Array.isArray(value) ? value : [value];
  return list.map((item: unknown, index): LodoDesign => {
    const where = `--design[${index}]`;
    if (!isRecord(item)) throw new Error(`${where} must be an object`);
    const unknown = Object.keys(item).filter((key) => !['name', 'gate', 'fit', 'fallback'].includes(key));
    if (unknown.length > 0) throw new Error(`${where}: unknown key(s) ${unknown.join(', ')}`);
    return {
      name: typeof item.name === 'string' ? item.name : `design-${index + 1}`,
      gate: parseGate(item.gate, where),
      fit: parseFit(item.fit, where),
      ...(item.fallback === 'length' || item.fallback === 'meta' || item.fallback === 'prior' ? { fallback: item.fallback } : {}),
    };
  });
}

/** Infinity survives JSON output as a string. */
export function designJson(design: LodoDesign): unknown {
  return JSON.parse(JSON.stringify(design, (_, value: unknown) => (value === Number.POSITIVE_INFINITY ? 'Infinity' : value)));
}
