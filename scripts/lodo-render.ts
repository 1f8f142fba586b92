/** Markdown tables of a leave-one-domain-out run. */
import type { CurvePoint, RouterScore } from './lodo-routerbench.js';
import type { MmluDomainResult } from './lodo-mmlu.js';

const fixed = (value: number | undefined, digits = 3) => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits));
const percent = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '–' : `${(value * 100).toFixed(1)}%`);
const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
const table = (header: readonly string[], rows: readonly (readonly string[])[]) =>
  [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');

const MMLU_SWEPT = ['auto', 'auto-no-gate', 'prompt-length', 'mean-accuracy', 'random', 'oracle'];
const MMLU_ALL = [...MMLU_SWEPT, 'always-cheapest', 'always-best'];

export function renderMmlu(results: readonly MmluDomainResult[]): string {
  const routers = MMLU_ALL.filter((name) => results.some((result) => result.report.routers.some((router) => router.name === name)));
  const swept = routers.filter((name) => MMLU_SWEPT.includes(name));
  const find = (result: MmluDomainResult, name: string) => result.report.routers.find((router) => router.name === name);
  const apgr = table(
    ['held-out domain', 'subjects', 'prompts', ...swept.map((name) => `${name} APGR (CPT50)`)],
    results.map((result) => [
      result.domain,
      String(result.subjects),
      String(result.report.prompts),
      ...swept.map((name) => `${fixed(find(result, name)?.apgr)} (${percent(find(result, name)?.cpt50)})`),
    ]),
  );
  const aiq = table(
    ['held-out domain', ...routers.map((name) => `${name} AIQ`)],
    results.map((result) => [result.domain, ...routers.map((name) => fixed(find(result, name)?.aiq, 4))]),
  );
  const verdicts = results.map((result) => {
    const auto = find(result, 'auto')?.apgr ?? NaN;
    const length = find(result, 'prompt-length')?.apgr ?? NaN;
    return `- ${result.domain}: auto APGR ${fixed(auto)} ${auto >= length ? '≥' : '<'} prompt length ${fixed(length)}: ${auto >= length ? 'yes' : 'NO'}`;
  });
  return [`APGR (CPT(50%)), RouteLLM's protocol, weights trained without the held-out domain:`, '', apgr, '', 'AIQ:', '', aiq, '', ...verdicts].join('\n');
}

interface Summary {
  readonly aiq: number;
  readonly costShare: number | undefined;
  /** Runs that reached 95 % of the best model's quality, of all runs. */
  readonly reached: number;
  readonly runs: number;
  readonly apgr: number | undefined;
}

function summarise(scores: readonly (RouterScore | undefined)[]): Summary {
  const present = scores.filter((score): score is RouterScore => score !== undefined);
  const average = (values: readonly number[]) => (values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0) / values.length);
  const shares = present.flatMap((score) => (score.costShare === undefined ? [] : [score.costShare]));
  return {
    aiq: average(present.map((score) => score.aiq)) ?? NaN,
    costShare: average(shares),
    reached: shares.length,
    runs: present.length,
    // APGR is undefined on a test set where both models are equally accurate (a few MBPP prompts can be).
    apgr: average(present.flatMap((score) => (score.apgr === undefined || !Number.isFinite(score.apgr) ? [] : [score.apgr]))),
  };
}

const share = (summary: Summary) =>
  summary.costShare === undefined ? 'not reached' : `${percent(summary.costShare)}${summary.reached < summary.runs ? ` (${summary.reached}/${summary.runs})` : ''}`;

const CURVE_COLUMNS = ['auto', 'auto-ability-calibration', 'mean-accuracy', 'prompt-length', 'random', 'always-cheapest', 'always-best', 'oracle'];

export function renderCurve(points: readonly CurvePoint[], repeats: number): string {
  const ks = [...new Set(points.map((point) => point.k))].sort((a, b) => a - b);
  const domains = [...new Set(points.map((point) => point.domain))];
  const of = (point: CurvePoint, name: string) => summarise(point.runs.map((run) => run.routers[name]));
  const lines: string[] = [];
  const cells = (point: CurvePoint) => CURVE_COLUMNS.map((name) => `${fixed(of(point, name).aiq, 4)} / ${share(of(point, name))}`);

  const atK = (k: number) => points.filter((point) => point.k === k);
  const shown = ks.length > 1 ? [ks[0] ?? 0, ks[ks.length - 1] ?? 0] : ks;
  for (const k of shown) {
    lines.push(`Held-out domain, k = ${k} labelled prompts of it (AIQ / cost share to reach 95% of the best model's quality; mean of ${k === 0 ? 1 : repeats} repeat(s)):`, '');
    lines.push(table(['held-out domain', 'test prompts', ...CURVE_COLUMNS], atK(k).map((point) => [point.domain, String(point.runs[0]?.testPrompts ?? 0), ...cells(point)])), '');
  }

  lines.push('Learning curve (AIQ / cost share; cost share in brackets counts the repeats that reached 95%):', '');
  const curveRows: string[][] = [];
  for (const domain of domains) {
    for (const point of points.filter((entry) => entry.domain === domain)) curveRows.push([domain, String(point.k), ...['auto', 'auto-ability-calibration', 'mean-accuracy'].map((name) => `${fixed(of(point, name).aiq, 4)} / ${share(of(point, name))}`), fixed(of(point, 'auto').aiq - of(point, 'mean-accuracy').aiq, 4)]);
  }
  for (const k of ks) {
    const group = atK(k);
    const meanOf = (name: string) => {
      const summaries = group.map((point) => of(point, name));
      const aiq = summaries.reduce((sum, entry) => sum + entry.aiq, 0) / Math.max(1, summaries.length);
      const reached = summaries.filter((entry) => entry.costShare !== undefined);
      const costShare = reached.length === summaries.length && reached.length > 0 ? reached.reduce((sum, entry) => sum + (entry.costShare ?? 0), 0) / reached.length : undefined;
      return { aiq, text: `${fixed(aiq, 4)} / ${costShare === undefined ? 'not reached everywhere' : percent(costShare)}` };
    };
    const auto = meanOf('auto');
    const meanAccuracy = meanOf('mean-accuracy');
    curveRows.push(['**mean**', String(k), auto.text, meanOf('auto-ability-calibration').text, meanAccuracy.text, fixed(auto.aiq - meanAccuracy.aiq, 4)]);
  }
  lines.push(table(['held-out domain', 'k', 'auto', 'auto (ability calibration only)', 'mean-accuracy', 'auto − mean-accuracy AIQ'], curveRows), '');

  const hasPair = points.some((point) => point.runs.some((run) => run.pair !== undefined));
  if (hasPair) {
    lines.push('Two models on the same test prompts (APGR; auto − prompt length):', '');
    const pairOf = (point: CurvePoint, name: string) => summarise(point.runs.map((run) => run.pair?.[name]));
    const pairRuns = (point: CurvePoint) => point.runs.filter((run) => Number.isFinite(run.pair?.auto?.apgr ?? NaN)).length;
    lines.push(
      table(
        ['held-out domain', 'k', 'runs with APGR defined', 'auto', 'auto (ability calibration only)', 'prompt-length', 'random', 'oracle', 'auto − prompt length'],
        points.map((point) => [
          point.domain,
          String(point.k),
          `${pairRuns(point)}/${point.runs.length}`,
          ...['auto', 'auto-ability-calibration', 'prompt-length', 'random', 'oracle'].map((name) => fixed(pairOf(point, name).apgr)),
          fixed((pairOf(point, 'auto').apgr ?? NaN) - (pairOf(point, 'prompt-length').apgr ?? NaN)),
        ]),
      ),
      '',
    );
  }

  lines.push('Verdicts:');
  for (const domain of domains) {
    const own = points.filter((point) => point.domain === domain);
    const losses = own.filter((point) => of(point, 'auto').aiq < of(point, 'mean-accuracy').aiq).map((point) => point.k);
    const pairLosses = own.filter((point) => (summarise(point.runs.map((run) => run.pair?.auto)).apgr ?? 0) < (summarise(point.runs.map((run) => run.pair?.['prompt-length'])).apgr ?? 0)).map((point) => point.k);
    lines.push(
      `- ${domain}: auto ≥ mean-accuracy router (many models) ${losses.length === 0 ? 'at every k: yes' : `NO at k = ${losses.join(', ')}`}` +
        (hasPair ? `; auto ≥ prompt length (two models) ${pairLosses.length === 0 ? 'at every k: yes' : `NO at k = ${pairLosses.join(', ')}`}` : ''),
    );
  }
  return lines.join('\n');
}
