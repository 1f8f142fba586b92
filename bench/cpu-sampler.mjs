/**
 * Preload for a gateway under test (`--import=<abs path>`, e.g. through bench/sequential-cost.ts's
 * SEQUENTIAL_GATEWAY_ENV with SEQUENTIAL_SIGNAL=1): on a first SIGUSR2, starts V8's CPU profiler (100 µs sampling); on
 * the second, writes the profile to /tmp/cpu-sampler-<pid>.cpuprofile. Unlike `--cpu-prof`, the profile holds only
 * the measured requests, not start-up and the JIT's warm-up. `npx tsx bench/cpu-profile-summary.ts <profile>` lists
 * where the time went.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const session = new Session();
session.connect();
let running = false;
process.on('SIGUSR2', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 100 }, () => session.post('Profiler.start')));
    return;
  }
  running = false;
  session.post('Profiler.stop', (error, result) => {
    if (error === null) writeFileSync(`/tmp/cpu-sampler-${process.pid}.cpuprofile`, JSON.stringify(result.profile));
  });
});
