/**
 * Runs a dependency graph of steps: every step whose dependencies have finished
 * starts at once, up to `maxParallel` at a time, in definition order. The first
 * failure stops new steps from starting; the steps already running are awaited
 * (their records matter), then that failure is thrown.
 */

export interface SchedulableStep {
  readonly name: string;
  readonly dependsOn: readonly string[];
}

export interface ScheduleOptions {
  /** @default 4 */
  readonly maxParallel: number;
  /** Called before each step starts; throwing ends the run as a step failure would. */
  readonly beforeStart?: (() => void) | undefined;
}

export async function runSchedule<S extends SchedulableStep>(steps: readonly S[], options: ScheduleOptions, run: (step: S) => Promise<void>): Promise<void> {
  const done = new Set<string>();
  const started = new Set<string>();
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;

  const ready = () => steps.filter((step) => !started.has(step.name) && step.dependsOn.every((name) => done.has(name)));

  for (;;) {
    if (failure === undefined) {
      for (const step of ready()) {
        if (running.size >= Math.max(1, options.maxParallel)) break;
        try {
          options.beforeStart?.();
        } catch (error) {
          failure = { error };
          break;
        }
        started.add(step.name);
        const task: Promise<void> = run(step).then(
          () => {
            done.add(step.name);
          },
          (error: unknown) => {
            failure ??= { error };
          },
        );
        running.add(task);
        void task.finally(() => running.delete(task));
      }
    }
    if (running.size === 0) break;
    await Promise.race(running);
    // Let the finished task's `finally` remove it before looking again.
    await Promise.resolve();
  }
  if (failure !== undefined) throw failure.error;
  const stuck = steps.filter((step) => !done.has(step.name));
  // Planning refuses cycles and unknown needs, so this is a bug if it happens.
  if (stuck.length > 0) throw new Error(`steps never became ready: ${stuck.map((step) => step.name).join(', ')}`);
}
