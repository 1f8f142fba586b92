/**
 * The order of an agent's steps in the form. The last step gives the answer and
 * runs after every other step, so the form keeps new steps before it and names
 * any step that reads it (a cycle the server would refuse). No imports: plain
 * logic, unit-tested under Node (test/web/agents-step-order.test.ts).
 */

/** What the ordering reads of a step as the form edits it (StepValues). */
export interface OrderedStep {
  readonly key: number;
  readonly name: string;
  readonly system: string;
  readonly prompt: string;
  readonly needs: readonly string[];
}

/**
 * Where "Add step" puts a new step: before the last one. A step added after the
 * answer step would make the answer step one it waits for: a cycle as soon as the
 * answer reads the new step, which is what a new step is usually for.
 */
export function withNewStep<T extends OrderedStep>(steps: readonly T[], step: T): T[] {
  if (steps.length === 0) return [step];
  return [...steps.slice(0, -1), step, ...steps.slice(-1)];
}

/** Names of the steps whose templates read `{{steps.<name>.…}}`. */
function readNames(step: OrderedStep): Set<string> {
  const names = new Set<string>();
  for (const template of [step.system, step.prompt]) {
    for (const match of template.matchAll(/\{\{\s*steps\.([^.\s{}]+)\./g)) if (match[1] !== undefined) names.add(match[1]);
  }
  return names;
}

/** Steps that read or need the last step: each makes a cycle, since the last step runs after every other one. */
export function readersOfLastStep<T extends OrderedStep>(steps: readonly T[]): T[] {
  const lastName = steps.at(-1)?.name.trim() ?? '';
  if (lastName === '') return [];
  return steps.slice(0, -1).filter((step) => step.name.trim() !== lastName && (readNames(step).has(lastName) || step.needs.includes(lastName)));
}

/** The steps with `key`'s step moved to the end, where it gives the answer. */
export function movedToEnd<T extends OrderedStep>(steps: readonly T[], key: number): T[] {
  const step = steps.find((candidate) => candidate.key === key);
  return step === undefined ? [...steps] : [...steps.filter((candidate) => candidate.key !== key), step];
}
