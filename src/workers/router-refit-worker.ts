import { randomUUID } from 'node:crypto';
import type { ModelCatalog } from '../catalog/catalog.js';
import { loadFitInput, needsRefit, stampFit, type RouterLearningDependencies } from '../admin/router-learning.js';
import { applySettingsChange } from '../admin/router-settings-input.js';
import type { AutoRouterModel } from '../routing/auto/model.js';
import { fitRouterInSlices } from '../routing/auto/router-fit.js';
import type { RouterRecord } from '../storage/routers-repository.js';

/**
 * Refits every `auto` router whose labels changed since its fit, in the background of every instance: each router is
 * fitted by one instance at a time (a lease row in the database), in slices that yield to the event loop between
 * them so requests keep flowing, and the fit is written as a router edit is, so every instance's change watcher picks
 * it up. The same pass prunes each router's routing samples to its newest `samplesPerRouter`, in small batches.
 */

export interface RouterRefitOptions {
  /** Between two passes. MODELPORT_ROUTER_REFIT_INTERVAL_MS. @default 30000 */
  readonly intervalMs: number;
  /** Routing samples kept per router, newest first. MODELPORT_ROUTING_SAMPLES_PER_ROUTER. @default 20000 */
  readonly samplesPerRouter: number;
  /** How long a lease holds: a fit that outlives it (an instance that died mid-fit) lets another instance take over. @default 300000 */
  readonly leaseMs?: number;
  /** Samples deleted per statement. @default 500 */
  readonly pruneBatch?: number;
  /** Names this instance in the lease table. @default a random id */
  readonly holder?: string;
}

export interface RouterRefitDependencies extends Pick<RouterLearningDependencies, 'repositories' | 'now'> {
  /** The catalog each router's owner sees (their own models over the shipped ones). */
  readonly catalogFor: (ownerId: string) => Promise<ModelCatalog>;
  /** The auto predictor's weights, loaded once on the first fit. */
  readonly autoModel: () => Promise<AutoRouterModel>;
  readonly onError: (error: unknown, routerId: string | undefined) => void;
  /** How the fit hands the event loop back between slices. @default the next turn of the loop (setImmediate) */
  readonly yieldToLoop?: () => Promise<void>;
}

export interface RouterRefitWorker {
  /** One pass now: refits what is stale and prunes samples; resolves with the ids of the routers it fitted. */
  runOnce(): Promise<string[]>;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function startRouterRefitWorker(deps: RouterRefitDependencies, options: RouterRefitOptions): RouterRefitWorker {
  const yieldToLoop = deps.yieldToLoop ?? nextTurn;
  const holder = options.holder ?? randomUUID();
  const leaseMs = options.leaseMs ?? 300_000;
  const pruneBatch = options.pruneBatch ?? 500;
  const { routers, routingLabels } = deps.repositories;
  let running: Promise<string[]> | undefined;
  let stopped = false;

  /** Fits one router under its lease; whether it wrote a fit. */
  const refit = async (router: RouterRecord): Promise<boolean> => {
    if (!(await routingLabels.acquireRefitLease(router.id, holder, deps.now() + leaseMs))) return false;
    try {
      // Read again under the lease: another instance may have fitted it since the list was read.
      const current = await routers.findById(router.id);
      if (current === undefined || current.strategy !== 'auto' || !needsRefit(current.settings.autoFit, await routingLabels.stats(current.id))) return false;
      const [autoModel, known] = await Promise.all([deps.autoModel(), deps.catalogFor(current.ownerId)]);
      const loaded = await loadFitInput(deps, current, autoModel, known, yieldToLoop);
      const fit = stampFit(await fitRouterInSlices(loaded.input, yieldToLoop), loaded.loaded, loaded.loadedAt);
      // Only over the settings it read: an owner's edit made meanwhile wins, and the next pass fits again.
      const written = await routers.update(current.ownerId, current.id, { settings: applySettingsChange(current.settings, { autoFit: fit }) }, { ifUpdatedAt: current.updatedAt });
      return written !== undefined;
    } finally {
      await routingLabels.releaseRefitLease(router.id, holder);
    }
  };

  const prune = async (router: RouterRecord): Promise<void> => {
    while (!stopped && (await routingLabels.pruneSamples(router.id, options.samplesPerRouter, pruneBatch)) > 0) await yieldToLoop();
  };

  const pass = async (): Promise<string[]> => {
    const fitted: string[] = [];
    let autoRouters: RouterRecord[];
    try {
      autoRouters = await routers.listByStrategy('auto');
    } catch (error) {
      deps.onError(error, undefined);
      return fitted;
    }
    for (const router of autoRouters) {
      if (stopped) break;
      try {
        if (needsRefit(router.settings.autoFit, await routingLabels.stats(router.id)) && (await refit(router))) fitted.push(router.id);
        await prune(router);
      } catch (error) {
        deps.onError(error, router.id);
      }
    }
    return fitted;
  };

  const runOnce = (): Promise<string[]> => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => void runOnce(), options.intervalMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
