import { calibrateRouterFromExamples, recordFeedback, routerSavings, type RouterLearningDependencies } from '../admin/router-learning.js';
import { roundUsd } from '../lib/money.js';
import type { RoutingDataset } from '../routing/auto/dataset.js';
import type { RouterFit } from '../routing/routing-contract.js';
import type { CalibrationView, FeedbackView, RouterFitView, SavingsReportView } from './dashboard-api-types.js';
import type { UsageRange } from './usage-report.js';

/** What the router page shows of a fit: when, from how many labels, per model; the weights stay on the server. */
export function fitView(fit: RouterFit): RouterFitView {
  const models = Object.fromEntries(Object.entries(fit.models).map(([id, fitted]) => [id, { labels: fitted.labels }]));
  return { fittedAt: fit.fittedAt, labels: fit.labels, models };
}

/** The stored label, or the reason there is none (never telling one workspace about another's requests). */
export type FeedbackOutcome = { readonly label: FeedbackView; readonly notFound?: undefined } | { readonly label?: undefined; readonly notFound: string };

/**
 * An `auto` router's learning in the dashboard's shapes: the admin's calibration, savings and feedback
 * (src/admin/router-learning.ts), which the CLI uses too, for the workspace that owns the router.
 */
export function createRouterLearningViews(deps: RouterLearningDependencies) {
  return {
    async calibrate(ownerId: string, routerId: string, examples: RoutingDataset): Promise<CalibrationView> {
      const result = await calibrateRouterFromExamples(deps, { ownerId, routerId, examples });
      return { examples: result.examples, modelsFitted: result.modelsFitted, ignored: result.ignored, fit: fitView(result.fit) };
    },

    async savings(ownerId: string, routerId: string, range: UsageRange): Promise<SavingsReportView> {
      const report = await routerSavings(deps, { ownerId, routerId, from: range.from, to: range.to, bucket: range.bucket });
      const { totals } = report;
      return {
        from: range.from,
        to: range.to,
        bucket: range.bucket,
        points: report.points.map((point) => ({
          t: point.start,
          requests: point.requests,
          costUsd: roundUsd(point.costUsd),
          counterfactualCostUsd: roundUsd(point.counterfactualCostUsd),
          feedback: point.feedback,
        })),
        totals: {
          requests: totals.requests,
          costUsd: roundUsd(totals.costUsd),
          counterfactualCostUsd: roundUsd(totals.counterfactualCostUsd),
          savedUsd: roundUsd(totals.savedUsd),
          feedback: totals.feedback,
        },
      };
    },

    async feedback(input: { readonly ownerId: string; readonly requestId: string; readonly raterId: string; readonly score: number; readonly comment?: string | undefined }): Promise<FeedbackOutcome> {
      const result = await recordFeedback(deps, input);
      if (result.label === undefined) return { notFound: result.notFound };
      const { label } = result;
      return { label: { requestId: input.requestId, score: label.score, comment: label.comment, createdAt: label.createdAt } };
    },
  };
}

export type RouterLearningViews = ReturnType<typeof createRouterLearningViews>;
