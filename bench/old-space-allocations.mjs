/**
 * Preload that finds per-chunk garbage promoted to the old generation: from 12 s after start, V8's sampling heap
 * profiler records allocations for 15 s; a minor GC just before it stops drops what died young, so what the
 * profile keeps is what reached the old generation (live, or garbage waiting for a full collection).
 * Needs --expose-gc. Writes /tmp/old-space-allocations-<pid>.json; summarise it with
 * `npx tsx bench/allocation-profile-summary.ts <file>`. Used as
 * STREAM_HEAP_NODE_ARGS="--expose-gc --import <abs path>" npx tsx bench/stream-heap.ts 3000 40.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const session = new Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
setTimeout(async () => {
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 4096 });
  setTimeout(async () => {
    globalThis.gc?.({ type: 'minor' });
    const { profile } = await post('HeapProfiler.stopSampling');
    writeFileSync(`/tmp/old-space-allocations-${process.pid}.json`, JSON.stringify(profile));
  }, 15_000).unref();
}, 12_000).unref();
