import { layerOwnerModels } from '../catalog/owner-catalog.js';
import type { ModelCatalog } from '../catalog/catalog.js';
import { routerKind } from '../catalog/router-kind.js';
import { createAutoPredictor } from '../routing/auto/auto-predictor.js';
import { UNKNOWN_MODEL_PRIOR } from '../routing/auto/calibrate-router.js';
import type { RoutingDataset } from '../routing/auto/dataset.js';
import type { AutoRouterModel } from '../routing/auto/model.js';
import { createPromptVectorizer, decodePromptVector, encodePromptVector } from '../routing/auto/prompt-vector.js';
import { fitRouter, type FitRouterInput, type RouterLabel } from '../routing/auto/router-fit.js';
import type { RouterFit } from '../routing/routing-contract.js';
import type { Repositories } from '../storage/repositories.js';
import type { RouterRecord } from '../storage/routers-repository.js';
import type { LabelStats, NewCalibrationLabel, RoutingLabel } from '../storage/routing-labels-repository.js';
import { AdminInputError } from './admin-errors.js';
import { applySettingsChange } from './router-settings-input.js';

/**
 * How an `auto` router learns its owner's traffic (docs/routing.md): calibration examples and feedback become labels
 * (routing_labels), a router is fitted on its newest labels (here at once for a calibration upload, in the background
 * for feedback: src/workers/router-refit-worker.ts), and what it saved is read back from the usage records. The
 * dashboard and the CLI call these.
 */

export interface RouterLearningDependencies {
  readonly repositories: Pick<Repositories, 'routers' | 'routingLabels' | 'usage' | 'customModels'>;
  /** The shipped catalog; each owner's own models are layered over it. */
  readonly catalog: ModelCatalog;
  readonly now: () => number;
  /** The auto predictor's weights (a few MB, loaded on first use). @default the shipped model */
  readonly autoModel?: (() => Promise<AutoRouterModel>) | undefined;
  /** Writes the usage records (and their samples) this process still has queued. */
  readonly flushUsage?: (() => Promise<void>) | undefined;
  /**
   * How long after a request its usage record may still wait in another instance's queue (the usage flush interval,
   * with a margin). @default 1250
   */
  readonly usageSettleMs?: number | undefined;
}

/** The most labels a fit reads, newest first: the fit keeps at most this many per model anyway. */
export const MAX_FIT_LABELS = 20_000;
/** The longest comment feedback may carry. */
export const MAX_FEEDBACK_COMMENT = 2000;

const loadShipped = async (): Promise<AutoRouterModel> => (await import('../routing/auto/shipped-model.js')).loadShippedAutoModel();

export interface FeedbackInput {
  readonly ownerId: string;
  readonly requestId: string;
  /** A key id, or `session:<userId>` for the dashboard's thumbs: one label per request and rater. */
  readonly raterId: string;
  /** 0 (a bad answer) .. 1 (a good one). */
  readonly score: number;
  readonly comment?: string | undefined;
  /** A key limited to some routers scores only their requests. @default every router of the owner */
  readonly routerIds?: readonly string[] | undefined;
}

/** The label stored, or why there is none to store (the message never tells one owner about another's requests). */
export type FeedbackResult = { readonly label: RoutingLabel; readonly notFound?: undefined } | { readonly label?: undefined; readonly notFound: string };

/**
 * Stores feedback on an answered `auto` request of the owner's as a label of its prompt's vector and the model that
 * answered. A repeat by the same rater replaces the score and comment and keeps the label's id.
 */
export async function recordFeedback(deps: RouterLearningDependencies, input: FeedbackInput): Promise<FeedbackResult> {
  if (!(typeof input.score === 'number' && input.score >= 0 && input.score <= 1)) throw new AdminInputError('score must be a number from 0 (a bad answer) to 1 (a good one).', 'score');
  if (input.comment !== undefined && input.comment.length > MAX_FEEDBACK_COMMENT) throw new AdminInputError(`comment may have at most ${MAX_FEEDBACK_COMMENT} characters.`, 'comment');
  const labels = deps.repositories.routingLabels;
  const sample = await findSampleSettled(deps, input.ownerId, input.requestId);
  if (sample === undefined || sample.owner_id !== input.ownerId) {
    const record = await deps.repositories.usage.findOwned(input.ownerId, input.requestId);
    if (record === undefined) return { notFound: `No request ${clip(input.requestId)} of this owner is known (use the _meta.requestId of an answer).` };
    return {
      notFound: `Request ${clip(input.requestId)} was not answered by an auto router, or its prompt features are no longer kept (each router keeps those of its newest requests): there is nothing to learn from.`,
    };
  }
  if (input.routerIds !== undefined && !input.routerIds.includes(sample.router_id)) {
    return { notFound: `Request ${clip(input.requestId)} was answered by a router this key may not use.` };
  }
  return { label: await labels.upsertFeedback(sample, input.raterId, input.score, input.comment ?? null) };
}

/**
 * The sample of a request, waiting for it when it may not be written yet. Feedback can arrive a few milliseconds
 * after its answer, while the usage record and its sample still wait in a usage writer's batch: this process's queue
 * is flushed (which resolves once written), and when the request id (time-ordered: src/lib/random-id.ts) says the
 * request is younger than another instance's flush interval, the lookup is retried until it is not. An unknown or old
 * id costs one or two reads, never a wait.
 */
async function findSampleSettled(deps: RouterLearningDependencies, ownerId: string, requestId: string) {
  const { routingLabels, usage } = deps.repositories;
  const found = await routingLabels.findSample(requestId);
  if (found !== undefined || deps.flushUsage === undefined) return found;
  await deps.flushUsage();
  const settleMs = deps.usageSettleMs ?? 1250;
  const madeAt = requestTime(requestId);
  // An id that claims a time ahead of the clock is not one of ours (or the clocks disagree): no wait for it.
  const settleUntil = madeAt > deps.now() + settleMs ? 0 : madeAt + settleMs;
  for (;;) {
    const sample = await routingLabels.findSample(requestId);
    if (sample !== undefined || deps.now() >= settleUntil) return sample;
    // A sample is written in the transaction of its usage record: with the record there and no sample, none will come.
    if ((await usage.findOwned(ownerId, requestId)) !== undefined) return undefined;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(1, settleUntil - deps.now()))));
  }
}

/** When a `req_…` id was made (its nine base-36 digits of epoch ms); 0 for anything else. */
function requestTime(requestId: string): number {
  const digits = /^req_([0-9a-z]{9})/.exec(requestId)?.[1];
  return digits === undefined ? 0 : Number.parseInt(digits, 36);
}

function clip(text: string): string {
  return text.length <= 100 ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, 100))}…`;
}

/** A rater's stored label on a request of the owner's, if any. */
export function findFeedback(deps: Pick<RouterLearningDependencies, 'repositories'>, input: { readonly ownerId: string; readonly requestId: string; readonly raterId: string }): Promise<RoutingLabel | undefined> {
  return deps.repositories.routingLabels.findFeedback(input.ownerId, input.requestId, input.raterId);
}

export interface CalibrationResult {
  readonly router: RouterRecord;
  /** Examples read. */
  readonly examples: number;
  /** Router models the examples score. */
  readonly modelsFitted: readonly string[];
  /** Models the examples score that the router does not have. */
  readonly ignored: readonly string[];
  readonly fit: RouterFit;
}

/**
 * Stores labelled examples as the router's calibration labels (replacing its earlier ones; feedback stays) and fits
 * the router on all its labels at once, so its next request routes with the fit.
 */
export async function calibrateRouterFromExamples(
  deps: RouterLearningDependencies,
  input: { readonly ownerId: string; readonly routerId: string; readonly examples: RoutingDataset },
): Promise<CalibrationResult> {
  const router = await ownedRouter(deps, input.ownerId, input.routerId);
  const known = await ownerCatalog(deps, router.ownerId);
  if (routerKind(router.models, known) === 'embedding') {
    throw new AdminInputError('Calibration fits the auto strategy, which predicts the quality of chat answers; an embedding router does not use it.');
  }
  const fitted = [...input.examples.scores.keys()].filter((id) => router.models.includes(id));
  const ignored = [...input.examples.scores.keys()].filter((id) => !router.models.includes(id));
  if (fitted.length === 0) throw new AdminInputError(`The examples score none of the router's models (${router.models.join(', ')}); score them by their provider:model ids.`);
  const autoModel = await (deps.autoModel ?? loadShipped)();
  const vectorize = createPromptVectorizer(autoModel);
  const vectors = input.examples.prompts.map((prompt) => encodePromptVector(vectorize(prompt)));
  const labels: NewCalibrationLabel[] = [];
  for (const modelId of fitted) {
    const scores = input.examples.scores.get(modelId);
    if (scores !== undefined) vectors.forEach((vector, index) => labels.push({ modelId, vector, score: scores[index] ?? 0 }));
  }
  await deps.repositories.routingLabels.replaceCalibration(router.ownerId, router.id, labels);
  const fitInput = await loadFitInput(deps, router, autoModel, known);
  const fit = stampFit(fitRouter(fitInput.input), fitInput.loaded, fitInput.loadedAt);
  // Calibrated abilities were the older way of fitting a router; the fit replaces them.
  const settings = applySettingsChange(router.settings, { autoFit: fit, autoAbilities: null });
  const updated = await deps.repositories.routers.update(router.ownerId, router.id, { settings });
  if (updated === undefined) throw new AdminInputError(`No router ${input.routerId} belongs to this owner.`);
  return { router: updated, examples: input.examples.prompts.length, modelsFitted: fitted, ignored, fit };
}

/** Labels read per query by a fit: a page of them reads and decodes in a few milliseconds. */
const FIT_PAGE = 1000;

/**
 * What a fit of this router reads: its newest labels (oldest first, as the fit takes them) and each model's prior.
 * Read a page at a time, `yieldToLoop` awaited between pages (the background refit gives requests their turn).
 */
export async function loadFitInput(
  deps: Pick<RouterLearningDependencies, 'repositories' | 'now'>,
  router: RouterRecord,
  autoModel: AutoRouterModel,
  known: ModelCatalog,
  yieldToLoop?: () => Promise<void>,
): Promise<{ input: FitRouterInput; loaded: number; loadedAt: number }> {
  const loadedAt = deps.now();
  const newestFirst: RouterLabel[] = [];
  let loaded = 0;
  let last: RoutingLabel | undefined;
  while (loaded < MAX_FIT_LABELS) {
    const page = await deps.repositories.routingLabels.listNewest(router.id, Math.min(FIT_PAGE, MAX_FIT_LABELS - loaded), last);
    loaded += page.length;
    for (const row of page) {
      if (!router.models.includes(row.modelId)) continue;
      const vector = decodePromptVector(row.vector);
      if (vector !== undefined) newestFirst.push({ vector, model: row.modelId, score: row.score });
    }
    last = page.at(-1);
    if (page.length < FIT_PAGE) break;
    await yieldToLoop?.();
  }
  // The fit corrects the predictor's catalog ability, the prior the auto strategy adds it to (router-fit.ts).
  const predictor = createAutoPredictor(autoModel);
  const priorAbility = (id: string) => {
    const entry = known.get(id);
    return entry === undefined ? UNKNOWN_MODEL_PRIOR : predictor.abilityOf(entry);
  };
  return { input: { labels: newestFirst.reverse(), priorAbility }, loaded, loadedAt };
}

/**
 * The fit as stored: stamped with the number of label rows read and the time they were read, which is what
 * `needsRefit` compares with (a label written while the fit ran is newer than the stamp and brings another refit).
 */
export function stampFit(fit: RouterFit, loaded: number, loadedAt: number): RouterFit {
  return { ...fit, labels: loaded, fittedAt: new Date(loadedAt).toISOString() };
}

/** Whether a router's labels changed since its fit: more or fewer of them, or one newer than the fit. */
export function needsRefit(fit: RouterFit | undefined, stats: LabelStats): boolean {
  if (stats.count === 0) return false;
  if (fit === undefined) return true;
  return fit.labels !== Math.min(stats.count, MAX_FIT_LABELS) || stats.newestAt > Date.parse(fit.fittedAt);
}

/** The owner's catalog: the shipped one with their own models over it. */
export async function ownerCatalog(deps: Pick<RouterLearningDependencies, 'repositories' | 'catalog'>, ownerId: string): Promise<ModelCatalog> {
  return layerOwnerModels(deps.catalog, await deps.repositories.customModels.listByOwner(ownerId));
}

async function ownedRouter(deps: Pick<RouterLearningDependencies, 'repositories'>, ownerId: string, routerId: string): Promise<RouterRecord> {
  const router = await deps.repositories.routers.findById(routerId);
  if (router === undefined || router.ownerId !== ownerId) throw new AdminInputError(`No router ${routerId} belongs to this owner.`);
  return router;
}

export type SavingsBucket = 'hour' | 'day';

export interface FeedbackSummary {
  readonly count: number;
  /** Mean score 0..1; null without feedback. */
  readonly meanScore: number | null;
}

export interface SavingsPoint {
  /** The bucket's start, epoch ms (UTC hours or days). */
  readonly start: number;
  readonly costUsd: number;
  /** What the same tokens would have cost on the router's strongest model for each prompt, at catalog prices. */
  readonly counterfactualCostUsd: number;
  readonly requests: number;
  readonly feedback: FeedbackSummary;
}

export interface SavingsReport {
  readonly points: readonly SavingsPoint[];
  readonly totals: Omit<SavingsPoint, 'start'> & { readonly savedUsd: number };
}

const BUCKET_MS: Record<SavingsBucket, number> = { hour: 3_600_000, day: 86_400_000 };
/** The most buckets one report has (a year of days, or two months of hours). */
export const MAX_SAVINGS_BUCKETS = 1500;

/**
 * A router's cost against always using its strongest model, per bucket in [from, to), with the feedback given in
 * each: every bucket of the range, empty ones as zeros, so a chart has no gaps.
 */
export async function routerSavings(
  deps: Pick<RouterLearningDependencies, 'repositories'>,
  input: { readonly ownerId: string; readonly routerId: string; readonly from: number; readonly to: number; readonly bucket: SavingsBucket },
): Promise<SavingsReport> {
  const router = await ownedRouter(deps, input.ownerId, input.routerId);
  const bucketMs = BUCKET_MS[input.bucket];
  if (!(input.to > input.from)) throw new AdminInputError('The range must end after it starts.');
  const first = Math.floor(input.from / bucketMs) * bucketMs;
  if ((input.to - first) / bucketMs > MAX_SAVINGS_BUCKETS) throw new AdminInputError(`The range has more than ${MAX_SAVINGS_BUCKETS} ${input.bucket}s; choose a shorter one or a larger bucket.`);
  const [usage, feedback] = await Promise.all([
    deps.repositories.usage.savingsBuckets(router.ownerId, router.id, input.from, input.to, bucketMs),
    deps.repositories.routingLabels.feedbackBuckets(router.ownerId, router.id, input.from, input.to, bucketMs),
  ]);
  const usageAt = new Map(usage.map((row) => [row.start, row]));
  const feedbackAt = new Map(feedback.map((row) => [row.start, row]));
  const points: SavingsPoint[] = [];
  for (let start = first; start < input.to; start += bucketMs) {
    const spent = usageAt.get(start);
    const scored = feedbackAt.get(start);
    points.push({
      start,
      costUsd: spent?.costUsd ?? 0,
      counterfactualCostUsd: spent?.counterfactualCostUsd ?? 0,
      requests: spent?.requests ?? 0,
      feedback: { count: scored?.count ?? 0, meanScore: scored === undefined ? null : scored.meanScore },
    });
  }
  const count = feedback.reduce((sum, row) => sum + row.count, 0);
  const costUsd = points.reduce((sum, point) => sum + point.costUsd, 0);
  const counterfactualCostUsd = points.reduce((sum, point) => sum + point.counterfactualCostUsd, 0);
  return {
    points,
    totals: {
      costUsd,
      counterfactualCostUsd,
      savedUsd: counterfactualCostUsd - costUsd,
      requests: points.reduce((sum, point) => sum + point.requests, 0),
      feedback: { count, meanScore: count === 0 ? null : feedback.reduce((sum, row) => sum + row.count * row.meanScore, 0) / count },
    },
  };
}
