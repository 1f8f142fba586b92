import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createIdleCollector, processProbe, type IdleCollectorProbe } from './idle-collector.js';

const MiB = 1024 * 1024;

/**
 * A process whose clock, heap and event-loop load the test sets; `collect` frees the heap down to `live` and what the
 * young generation holds, which `collectYoung` gives back.
 */
function fakeProcess(heapMiB: number) {
  const state = { now: 0, heap: heapMiB * MiB, live: heapMiB * MiB, young: 0, busy: 0, collections: 0, youngCollections: 0, trims: 0 };
  const probe: IdleCollectorProbe = {
    collect() {
      state.collections += 1;
      state.heap = state.live + state.young;
    },
    collectYoung() {
      state.youngCollections += 1;
      state.heap -= state.young;
      state.young = 0;
    },
    trim() {
      state.trims += 1;
    },
    committedHeapBytes: () => state.heap,
    busyShare: () => state.busy,
    now: () => state.now,
  };
  return { state, probe };
}

/** Checks at each of these times, with the event loop busy that share since the previous check. */
function checkAt(state: { now: number; busy: number }, collector: { check(): void }, steps: readonly (readonly [number, number])[]): void {
  for (const [now, busy] of steps) {
    state.now = now;
    state.busy = busy;
    collector.check();
  }
}

test('collects once the process has been idle long enough after its heap grew, and tells what it gave back', () => {
  const { state, probe } = fakeProcess(40);
  const told: { heapBeforeBytes: number; heapAfterBytes: number }[] = [];
  const collector = createIdleCollector({ idleMs: 30_000, onCollected: (collection) => told.push(collection) }, probe);
  // A load: busy, the heap grows.
  state.busy = 0.6;
  state.now = 10_000;
  state.heap = 300 * MiB;
  state.live = 60 * MiB;
  collector.check();
  // Idle, but not for long enough yet.
  state.busy = 0.001;
  state.now = 39_000;
  collector.check();
  assert.equal(state.collections, 0);
  state.now = 40_000;
  collector.check();
  assert.equal(state.collections, 1);
  assert.deepEqual(told.map(({ heapBeforeBytes, heapAfterBytes }) => [heapBeforeBytes / MiB, heapAfterBytes / MiB]), [[300, 60]]);
});

/** A collector (30 s idle) whose process worked half of its first 20 s and grew its heap to 300 MiB. */
function afterWork() {
  const { state, probe } = fakeProcess(40);
  const collector = createIdleCollector({ idleMs: 30_000 }, probe);
  state.heap = 300 * MiB;
  state.now = 20_000;
  state.busy = 0.5;
  collector.check();
  return { state, collector };
}

test('a busy event loop restarts the wait', () => {
  const { state, collector } = afterWork();
  state.busy = 0;
  state.now = 45_000;
  collector.check();
  assert.equal(state.collections, 0, 'only 25 s idle since the work');
  state.now = 50_000;
  collector.check();
  assert.equal(state.collections, 1);
});

test('a short burst of work inside the quiet period (idle connections closing) does not restart the wait', () => {
  const { state, collector } = afterWork();
  // Quiet from 20 s; between 45 and 50 s the event loop is 5 % busy: 250 ms, under 2 % of the 30 s.
  checkAt(state, collector, [[25_000, 0], [30_000, 0], [35_000, 0], [40_000, 0], [45_000, 0], [50_000, 0.05]]);
  assert.equal(state.collections, 1, '30 s since the work, busy 0.8 % of it');
});

test('work that adds up to more than 2 % of the quiet period restarts the wait', () => {
  const { state, probe } = fakeProcess(40);
  const collector = createIdleCollector({ idleMs: 30_000 }, probe);
  state.heap = 300 * MiB;
  // 3 % busy, each 5 s slice under what a single slice could tell from idleness.
  for (let now = 5_000; now <= 60_000; now += 5_000) {
    state.now = now;
    state.busy = 0.03;
    collector.check();
  }
  assert.equal(state.collections, 0);
});

test('no collection when the heap has not grown by 16 MiB since the last one, however long the process idles', () => {
  const { state, probe } = fakeProcess(40);
  const collector = createIdleCollector({ idleMs: 1_000 }, probe);
  state.heap = 55 * MiB;
  for (const now of [2_000, 60_000, 600_000]) {
    state.now = now;
    collector.check();
  }
  assert.equal(state.collections, 0);
  // After one collection, the next needs another 16 MiB on top of what it left.
  state.heap = 200 * MiB;
  state.live = 80 * MiB;
  state.now = 700_000;
  collector.check();
  assert.equal(state.collections, 1);
  state.now = 705_000;
  collector.check();
  assert.equal(state.youngCollections, 1);
  state.heap = 90 * MiB;
  state.now = 800_000;
  collector.check();
  assert.equal(state.collections, 1);
  state.heap = 100 * MiB;
  state.now = 900_000;
  collector.check();
  assert.equal(state.collections, 2);
});

test('stopped, it never collects', () => {
  const { state, probe } = fakeProcess(40);
  const collector = createIdleCollector({ idleMs: 1_000 }, probe);
  collector.stop();
  state.heap = 500 * MiB;
  state.now = 100_000;
  collector.check();
  assert.equal(state.collections, 0);
});

test('5 s of quiet after the full collection, one young collection (V8 shrinks the young generation then)', () => {
  const { state, probe } = fakeProcess(40);
  const collector = createIdleCollector({ idleMs: 10_000 }, probe);
  state.heap = 200 * MiB;
  state.live = 50 * MiB;
  state.young = 30 * MiB;
  state.now = 10_000;
  collector.check();
  assert.deepEqual([state.collections, state.youngCollections, state.heap / MiB], [1, 0, 80]);
  state.now = 12_000;
  collector.check();
  assert.equal(state.youngCollections, 0, 'only 2 s after');
  // Work in between restarts the wait.
  state.busy = 0.3;
  state.now = 14_000;
  collector.check();
  state.busy = 0;
  state.now = 18_000;
  collector.check();
  assert.equal(state.youngCollections, 0, 'only 4 s of quiet');
  state.now = 19_000;
  collector.check();
  assert.deepEqual([state.collections, state.youngCollections, state.heap / MiB], [1, 1, 50]);
  for (const now of [30_000, 60_000, 120_000]) {
    state.now = now;
    collector.check();
  }
  assert.deepEqual([state.collections, state.youngCollections], [1, 1]);
});

test("the process's collection is a real full collection: an object only weakly held is gone after it", async () => {
  const probe = processProbe();
  let target: object | undefined = { payload: new Array(1000).fill('x') };
  const ref = new WeakRef(target);
  target = undefined;
  // A WeakRef's target is kept until the end of the current job: collect in a later one.
  await new Promise((resolve) => setImmediate(resolve));
  probe.collect();
  assert.equal(ref.deref(), undefined);
  probe.collectYoung();
  assert.ok(probe.committedHeapBytes() > 0);
  const share = probe.busyShare();
  assert.ok(share >= 0 && share <= 1, String(share));
});

test("the process's probe trims with the function it was given", () => {
  let trims = 0;
  const probe = processProbe(undefined, () => {
    trims += 1;
    return true;
  });
  probe.trim?.();
  assert.equal(trims, 1);
});

test("glibc's free pages go back after each collection, and once per quiet period when V8 had already shrunk the heap", () => {
  const { state, requests, collector } = servedLoad();
  state.busy = 0;
  state.now = 50_000;
  collector.check();
  assert.deepEqual([state.collections, state.trims], [1, 1], 'the full collection is followed by a trim');
  state.now = 55_000;
  collector.check();
  assert.deepEqual([state.youngCollections, state.trims], [1, 2], 'and so is the young one');
  state.now = 200_000;
  collector.check();
  assert.equal(state.trims, 2, 'no work since: nothing to trim');

  // Another load, after which V8's own collections brought the heap back down before the idle collector's turn.
  requests.events += 500;
  state.now = 210_000;
  collector.check();
  state.now = 240_000;
  collector.check();
  state.now = 245_000;
  collector.check();
  assert.deepEqual([state.collections, state.trims], [1, 3], 'no collection (the heap did not grow), but one trim');
  state.now = 300_000;
  collector.check();
  assert.equal(state.trims, 3, 'once per quiet period');
});

/** A serving process (requests counted) that served a load until 20 s and grew its heap to 300 MiB. */
function servedLoad() {
  const { state, probe } = fakeProcess(40);
  const requests = { events: 0 };
  const collector = createIdleCollector({ idleMs: 30_000 }, { ...probe, requestEvents: () => requests.events });
  state.heap = 300 * MiB;
  state.busy = 0.5;
  requests.events = 2_000;
  state.now = 20_000;
  collector.check();
  return { state, requests, collector };
}

test('serving requests: idleness counts from the last request that started or ended', () => {
  const { state, requests, collector } = servedLoad();
  state.busy = 0;
  state.now = 45_000;
  collector.check();
  // One request at 45 s: the wait starts again from there, however quiet the event loop was.
  requests.events += 2;
  state.now = 50_000;
  collector.check();
  state.now = 75_000;
  collector.check();
  assert.equal(state.collections, 0, '25 s since the last request');
  state.now = 80_000;
  collector.check();
  assert.equal(state.collections, 1);
});

test('serving requests: work that is not a request (connections closing) delays the collection without restarting the wait', () => {
  const { state, collector } = servedLoad();
  // From 20 s no request. Busy between 25 and 30 s (5 % of the wait: over the budget a non-serving process has) and
  // between 45 and 50 s.
  checkAt(state, collector, [[25_000, 0], [30_000, 0.3], [35_000, 0], [40_000, 0], [45_000, 0], [50_000, 0.4]]);
  assert.equal(state.collections, 0, 'no pause in the middle of work');
  state.now = 55_000;
  state.busy = 0;
  collector.check();
  assert.equal(state.collections, 1, '35 s after the last request, the first quiet check');
});

test('onIdle runs once a quiet period reached idleMs, before the collection, and again only after more work', () => {
  const { state, probe } = fakeProcess(40);
  const order: string[] = [];
  const collector = createIdleCollector({
    idleMs: 30_000,
    onIdle: () => {
      order.push(`idle (collections ${state.collections})`);
      return undefined;
    },
  }, probe);
  state.heap = 300 * MiB;
  state.live = 60 * MiB;
  checkAt(state, collector, [[10_000, 0.6], [35_000, 0.001]]);
  assert.deepEqual(order, [], 'not idle long enough');
  checkAt(state, collector, [[40_000, 0.001]]);
  assert.deepEqual(order, ['idle (collections 0)'], 'called before the collection');
  assert.equal(state.collections, 1);
  checkAt(state, collector, [[45_000, 0.001], [80_000, 0.001], [120_000, 0.001]]);
  assert.equal(order.length, 1, 'once per quiet period');
  checkAt(state, collector, [[125_000, 0.5], [160_000, 0.001]]);
  assert.equal(order.length, 2, 'again after more work');
});

test('onIdle called again when what it still held has become garbage, with a collection of its own however little the heap grew', () => {
  const { state, probe } = fakeProcess(40);
  // The rate limits after a burst: a window of entries still inside it when the quiet period reaches idleMs.
  let held = 30 * MiB;
  const calls: number[] = [];
  const collector = createIdleCollector({
    idleMs: 30_000,
    onIdle: () => {
      calls.push(state.now);
      if (state.now < 70_000) return 70_000 - state.now;
      state.live -= held;
      held = 0;
      return undefined;
    },
  }, probe);
  state.heap = 300 * MiB;
  state.live = 100 * MiB;
  checkAt(state, collector, [[10_000, 0.6], [40_000, 0.001]]);
  assert.deepEqual(calls, [40_000]);
  assert.equal(state.collections, 1);
  assert.equal(state.heap, 100 * MiB);
  // Not yet: the entries are still inside their window.
  checkAt(state, collector, [[45_000, 0.001], [69_000, 0.001]]);
  assert.deepEqual(calls, [40_000]);
  assert.equal(state.collections, 1);
  // Once they have left it: dropped, and collected although the heap did not grow by 16 MiB.
  checkAt(state, collector, [[70_000, 0.001]]);
  assert.deepEqual(calls, [40_000, 70_000]);
  assert.equal(state.collections, 2);
  assert.equal(state.heap, 70 * MiB);
  checkAt(state, collector, [[75_000, 0.001], [110_000, 0.001], [200_000, 0.001]]);
  assert.equal(calls.length, 2, 'nothing more held: not called again in this quiet period');
  assert.equal(state.collections, 2);
});

test('work before onIdle asked to be called again cancels that call', () => {
  const { state, probe } = fakeProcess(40);
  const calls: number[] = [];
  const collector = createIdleCollector({
    idleMs: 30_000,
    onIdle: () => {
      calls.push(state.now);
      return calls.length === 1 ? 20_000 : undefined;
    },
  }, probe);
  state.heap = 300 * MiB;
  state.live = 60 * MiB;
  checkAt(state, collector, [[10_000, 0.6], [40_000, 0.001]]);
  // More work at 50 s: the next quiet period starts over, its own onIdle call comes 30 s after it, not at 60 s.
  checkAt(state, collector, [[50_000, 0.6], [60_000, 0.001], [79_000, 0.001]]);
  assert.deepEqual(calls, [40_000]);
  checkAt(state, collector, [[80_000, 0.001]]);
  assert.deepEqual(calls, [40_000, 80_000]);
});
