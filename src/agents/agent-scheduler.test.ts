import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSchedule } from './agent-scheduler.js';

/** A step that finishes when the test says so, recording when it started. */
function harness() {
  const events: string[] = [];
  const releases = new Map<string, () => void>();
  const run = (step: { name: string }) =>
    new Promise<void>((resolve) => {
      events.push(`start ${step.name}`);
      releases.set(step.name, () => {
        events.push(`end ${step.name}`);
        resolve();
      });
    });
  const release = async (name: string) => {
    for (let turn = 0; turn < 20 && !releases.has(name); turn += 1) await new Promise((resolve) => setImmediate(resolve));
    const fn = releases.get(name);
    assert.ok(fn, `${name} never started; events: ${events.join(', ')}`);
    fn();
  };
  return { events, run, release };
}

describe('runSchedule', () => {
  it('starts independent steps together and a join only after both', async () => {
    const { events, run, release } = harness();
    const steps = [
      { name: 'a', dependsOn: [] },
      { name: 'b', dependsOn: [] },
      { name: 'c', dependsOn: ['a', 'b'] },
    ];
    const done = runSchedule(steps, { maxParallel: 4 }, run);
    await release('b');
    await release('a');
    await release('c');
    await done;
    assert.deepEqual(events, ['start a', 'start b', 'end b', 'end a', 'start c', 'end c']);
  });

  it('never runs more than maxParallel at once', async () => {
    const { events, run, release } = harness();
    const steps = ['a', 'b', 'c'].map((name) => ({ name, dependsOn: [] }));
    const done = runSchedule(steps, { maxParallel: 2 }, run);
    await release('a');
    await release('b');
    await release('c');
    await done;
    assert.deepEqual(events.slice(0, 3), ['start a', 'start b', 'end a']);
  });

  it('stops starting steps after a failure, waits for running ones, and throws the failure', async () => {
    const started: string[] = [];
    let finishSlow: () => void = () => undefined;
    const steps = [
      { name: 'fails', dependsOn: [] },
      { name: 'slow', dependsOn: [] },
      { name: 'after', dependsOn: ['fails'] },
    ];
    const done = runSchedule(steps, { maxParallel: 4 }, async (step) => {
      started.push(step.name);
      if (step.name === 'fails') throw new Error('boom');
      await new Promise<void>((resolve) => {
        finishSlow = resolve;
      });
    });
    let settled = false;
    void done.catch(() => undefined).finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'waits for the running step');
    finishSlow();
    await assert.rejects(done, /boom/);
    assert.deepEqual(started, ['fails', 'slow']);
  });

  it('a throwing beforeStart ends the run before the step starts', async () => {
    const started: string[] = [];
    let budget = 1;
    const steps = [
      { name: 'a', dependsOn: [] },
      { name: 'b', dependsOn: ['a'] },
    ];
    const done = runSchedule(
      steps,
      {
        maxParallel: 1,
        beforeStart: () => {
          if (budget <= 0) throw new Error('over budget');
          budget -= 1;
        },
      },
      async (step) => {
        started.push(step.name);
      },
    );
    await assert.rejects(done, /over budget/);
    assert.deepEqual(started, ['a']);
  });
});
