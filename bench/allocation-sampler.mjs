/**
 * Preload for a gateway under test (`--import=<abs path>`, e.g. through bench/sequential-cost.ts's
 * SEQUENTIAL_GATEWAY_ENV): on a first SIGUSR2, starts V8's sampling heap profiler counting every allocation, those a
 * minor or major collection has freed since included (the profiler otherwise keeps only what is still alive); on the
 * second, writes the profile to /tmp/allocation-sampler-<pid>.json and the garbage collections seen in between
 * (count and ms by kind) to /tmp/allocation-sampler-<pid>-gc.json. `npx tsx bench/allocation-profile-summary.ts
 * <profile>` lists its largest sites; the total divided by the requests is what one request allocates.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
const session = new Session();
session.connect();
let gcs;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail?.kind] ?? String(entry.detail?.kind);
    gcs[kind] ??= { count: 0, ms: 0 };
    gcs[kind].count += 1;
    gcs[kind].ms += entry.duration;
  }
});
process.on('SIGUSR2', () => {
  if (gcs === undefined) {
    gcs = {};
    observer.observe({ entryTypes: ['gc'] });
    session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true });
    return;
  }
  observer.disconnect();
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error === null) writeFileSync(`/tmp/allocation-sampler-${process.pid}.json`, JSON.stringify(result.profile));
    writeFileSync(`/tmp/allocation-sampler-${process.pid}-gc.json`, JSON.stringify(gcs));
    gcs = undefined;
  });
});
