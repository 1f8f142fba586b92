import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createChangeWatcher } from './change-watcher.js';
import type { ChangesRepository } from './changes-repository.js';

/** A counter whose reads are held until the test releases them, in order. */
function heldCounter() {
  let version = 1;
  const waiting: Array<() => void> = [];
  let reads = 0;
  const repository: ChangesRepository = {
    current: () => {
      reads += 1;
      const seen = version; // the value at the moment the read starts
      return new Promise((resolve) => waiting.push(() => resolve(seen)));
    },
  };
  return {
    repository,
    bump: () => (version += 1),
    release: () => waiting.shift()?.(),
    reads: () => reads,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('change watcher', () => {
  it('a poll asked for during a read that began before a write sees the write', async () => {
    const counter = heldCounter();
    const watcher = createChangeWatcher(counter.repository, 60_000, () => {});
    let changes = 0;
    watcher.onChange(() => (changes += 1));
    counter.release(); // the first read: version 1 is known
    await tick();

    const timerLike = watcher.poll(); // starts a read of version 1
    counter.bump(); // the write lands after that read began
    let done = false;
    const asked = watcher.poll().then(() => (done = true));
    const alsoAsked = watcher.poll();
    counter.release(); // the stale read ends: no change seen
    await timerLike;
    await tick();
    assert.equal(done, false, 'the asked poll must wait for a read that starts after it');
    assert.equal(changes, 0);
    counter.release(); // the follow-up read sees version 2
    await asked;
    await alsoAsked;
    assert.equal(changes, 1);
    assert.equal(counter.reads(), 3, 'the two callers during the read share one follow-up read');
    watcher.stop();
  });

  it('a failed read is reported and the next poll still reads', async () => {
    const errors: unknown[] = [];
    let fail = true;
    let version = 1;
    const repository: ChangesRepository = {
      current: async () => {
        if (fail) throw new Error('database is locked');
        return version;
      },
    };
    const watcher = createChangeWatcher(repository, 60_000, (error) => errors.push(error));
    let changes = 0;
    watcher.onChange(() => (changes += 1));
    await watcher.poll();
    assert.equal(errors.length >= 1, true);
    fail = false;
    await watcher.poll();
    version = 2;
    await watcher.poll();
    assert.equal(changes, 1);
    watcher.stop();
  });
});
