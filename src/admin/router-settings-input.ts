import { z } from 'zod';
import type { RouterFit, RouterSettings } from '../routing/routing-contract.js';
import { AdminInputError } from './admin-errors.js';

/**
 * The rules for a router's settings, for every way an owner sets them (CLI,
 * dashboard): weights ≥ 0 summing to more than 0, a quality target in (0, 1],
 * a cost ceiling above 0. Unknown fields are refused, never silently dropped.
 */
const weight = z.number({ error: 'must be a number' }).min(0, { error: 'must be 0 or more' });

const routerSettingsSchema = z.strictObject({
  weights: z
    .strictObject({ cost: weight.optional(), latency: weight.optional(), quality: weight.optional(), carbon: weight.optional() })
    .refine((weights) => (weights.cost ?? 0) + (weights.latency ?? 0) + (weights.quality ?? 0) + (weights.carbon ?? 0) > 0, {
      error: 'must sum to more than 0 (set at least one of cost, latency, quality, carbon)',
    })
    .optional(),
  qualityTarget: z.number({ error: 'must be a number' }).gt(0, { error: 'must be more than 0' }).lte(1, { error: 'must be at most 1' }).optional(),
  maxCostPerRequestUsd: z.number({ error: 'must be a number' }).gt(0, { error: 'must be more than 0 USD' }).optional(),
  autoAbilities: z
    .record(
      z.string().regex(/^[^:\s]+:\S+$/, { error: 'keys must be provider:model ids' }),
      z.strictObject({
        position: z.number({ error: 'must be a number' }).min(-1.5).max(3),
        offset: z.number({ error: 'must be a number' }).min(-10).max(10),
        examples: z.number({ error: 'must be a number' }).int().min(0),
      }),
    )
    .optional(),
  exploration: z.number({ error: 'must be a number' }).min(0, { error: 'must be 0 or more' }).max(1, { error: 'must be at most 1' }).optional(),
  requestLog: z
    .strictObject({
      bodies: z.boolean({ error: 'must be true or false' }),
      retentionDays: z.number({ error: 'must be a number' }).int({ error: 'must be a whole number of days' }).min(1, { error: 'must be at least 1' }).max(90, { error: 'must be at most 90' }).optional(),
      maxBodyBytes: z.number({ error: 'must be a number' }).int({ error: 'must be a whole number of bytes' }).min(1, { error: 'must be at least 1' }).max(1_048_576, { error: 'must be at most 1048576 (1 MiB)' }).optional(),
    })
    .optional(),
  // Written by the fit (src/routing/auto/router-fit.ts), never typed by people: checked for shape, its extra fields kept.
  autoFit: z
    .looseObject({
      version: z.literal(1),
      vectorVersion: z.number().int(),
      fittedAt: z.string(),
      labels: z.number().int().min(0),
      models: z.record(
        z.string(),
        z.looseObject({ weights: z.array(z.number().refine(Number.isFinite)), labels: z.number().int().min(0), uncertainty: z.number().min(0) }),
      ),
    })
    .optional(),
});

export type RouterWeights = NonNullable<RouterSettings['weights']>;

/** Checks settings from any source and returns them without absent fields. */
export function validateRouterSettings(input: unknown): RouterSettings {
  const parsed = routerSettingsSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue === undefined || issue.path.length === 0 ? 'settings' : issue.path.map(String).join('.');
    const detail = issue?.code === 'unrecognized_keys' ? `unknown field(s) ${issue.keys.join(', ')}` : (issue?.message ?? 'invalid');
    throw new AdminInputError(`Invalid router setting ${path}: ${detail}.`);
  }
  const { weights, qualityTarget, maxCostPerRequestUsd, autoAbilities, exploration, autoFit, requestLog } = parsed.data;
  return {
    ...(weights !== undefined ? { weights: withoutUndefined(weights) } : {}),
    ...(qualityTarget !== undefined ? { qualityTarget } : {}),
    ...(maxCostPerRequestUsd !== undefined ? { maxCostPerRequestUsd } : {}),
    ...(autoAbilities !== undefined && Object.keys(autoAbilities).length > 0 ? { autoAbilities } : {}),
    ...(exploration !== undefined ? { exploration } : {}),
    ...(autoFit !== undefined ? { autoFit: autoFit as RouterFit } : {}),
    ...(requestLog !== undefined ? { requestLog: withoutUndefinedLog(requestLog) } : {}),
  };
}

function withoutUndefinedLog(log: { bodies: boolean; retentionDays?: number | undefined; maxBodyBytes?: number | undefined }): NonNullable<RouterSettings['requestLog']> {
  return {
    bodies: log.bodies,
    ...(log.retentionDays !== undefined ? { retentionDays: log.retentionDays } : {}),
    ...(log.maxBodyBytes !== undefined ? { maxBodyBytes: log.maxBodyBytes } : {}),
  };
}

/** An update of some settings: a value replaces, `null` goes back to the default, absent keeps. */
export interface RouterSettingsChange {
  readonly weights?: RouterWeights | null | undefined;
  readonly qualityTarget?: number | null | undefined;
  readonly maxCostPerRequestUsd?: number | null | undefined;
  readonly autoAbilities?: RouterSettings['autoAbilities'] | null | undefined;
  /** The share of `auto` requests that explore; `null` goes back to the default (docs/routing.md). */
  readonly exploration?: number | null | undefined;
  readonly autoFit?: RouterFit | null | undefined;
  /** Body logging; `null` goes back to the default (not kept). */
  readonly requestLog?: RouterSettings['requestLog'] | null | undefined;
}

const SETTING_KEYS = ['weights', 'qualityTarget', 'maxCostPerRequestUsd', 'autoAbilities', 'exploration', 'autoFit', 'requestLog'] as const satisfies readonly (keyof RouterSettingsChange)[];

export function applySettingsChange(current: RouterSettings, change: RouterSettingsChange): RouterSettings {
  const next: { -readonly [K in keyof RouterSettings]: RouterSettings[K] } = { ...current };
  for (const key of SETTING_KEYS) {
    const value = change[key];
    if (value === null) delete next[key];
    else if (value !== undefined) Object.assign(next, { [key]: value });
  }
  return validateRouterSettings(next);
}

/** Whether a change would change anything at all. */
export function isEmptySettingsChange(change: RouterSettingsChange): boolean {
  return SETTING_KEYS.every((key) => change[key] === undefined);
}

/**
 * `cost=0.5,latency=0.2,quality=0.2,carbon=0.1` → weights; criteria left out
 * weigh 0. `equal` (or `none`) → null: back to equal weights.
 */
export function parseWeights(text: string): RouterWeights | null {
  const trimmed = text.trim();
  if (trimmed === 'equal' || trimmed === 'none') return null;
  const weights: Partial<Record<keyof RouterWeights, number>> = {};
  for (const item of trimmed.split(',')) {
    const match = /^\s*(cost|latency|quality|carbon)\s*=\s*(\d+(?:\.\d+)?)\s*$/.exec(item);
    if (match === null) {
      throw new AdminInputError(`--weights takes criterion=number pairs, e.g. cost=0.5,latency=0.2,quality=0.2,carbon=0.1 (criteria: cost, latency, quality, carbon), not "${item.trim()}".`);
    }
    const criterion = match[1] as keyof RouterWeights;
    if (weights[criterion] !== undefined) throw new AdminInputError(`--weights gives ${criterion} twice.`);
    weights[criterion] = Number(match[2]);
  }
  return validateRouterSettings({ weights }).weights ?? null;
}

/** A decimal number for a settings flag, or `none` → null (back to the default). */
export function parseSettingNumber(text: string, flag: string): number | null {
  const trimmed = text.trim();
  if (trimmed === 'none') return null;
  if (!/^\d+(\.\d+)?$/.test(trimmed)) throw new AdminInputError(`${flag} must be a decimal number such as 0.8 (or "none"), not "${text}".`);
  return Number(trimmed);
}

/** `cost=0.5,latency=0.2`: the weights as people write them; `equal` without. */
export function formatWeights(weights: RouterSettings['weights']): string {
  if (weights === undefined) return 'equal';
  return (['cost', 'latency', 'quality', 'carbon'] as const).map((criterion) => `${criterion}=${weights[criterion] ?? 0}`).join(',');
}

function withoutUndefined(weights: { cost?: number | undefined; latency?: number | undefined; quality?: number | undefined; carbon?: number | undefined }): RouterWeights {
  return {
    ...(weights.cost !== undefined ? { cost: weights.cost } : {}),
    ...(weights.latency !== undefined ? { latency: weights.latency } : {}),
    ...(weights.quality !== undefined ? { quality: weights.quality } : {}),
    ...(weights.carbon !== undefined ? { carbon: weights.carbon } : {}),
  };
}
