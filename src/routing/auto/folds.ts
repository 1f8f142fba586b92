/** Seeded, dependency-free randomness and subject folds for training and cross-validation. */

import { seededRandom } from '../../lib/seeded-random.js';

/** A seeded PRNG returning floats in [0, 1) (mulberry32). */
export const createRandom = seededRandom;

/**
 * Splits the subjects into `folds` groups of about equal prompt counts: the
 * subjects are shuffled with `seed`, then each, in that order, goes to the smallest fold so far.
 * Returns the fold of every prompt. Prompts without a subject form their own "subject".
 */
export function foldsBySubject(subjects: readonly (string | undefined)[], folds: number, seed: number): Int32Array {
  const sizes = new Map<string, number>();
  for (const subject of subjects) sizes.set(subject ?? '', (sizes.get(subject ?? '') ?? 0) + 1);
  const names = [...sizes.keys()].sort();
  const random = createRandom(seed);
  for (let i = names.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [names[i], names[j]] = [names[j] as string, names[i] as string];
  }
  const totals = new Array<number>(folds).fill(0);
  const foldOf = new Map<string, number>();
  for (const name of names) {
    let smallest = 0;
    for (let f = 1; f < folds; f += 1) if ((totals[f] ?? 0) < (totals[smallest] ?? 0)) smallest = f;
    foldOf.set(name, smallest);
    totals[smallest] = (totals[smallest] ?? 0) + (sizes.get(name) ?? 0);
  }
  return Int32Array.from(subjects, (subject) => foldOf.get(subject ?? '') ?? 0);
}
