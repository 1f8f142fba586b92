import type { UsageRecorder } from '../accounting/usage-recorder.js';
import type { GatewayMetrics } from './metrics.js';

/** A usage recorder that also feeds each record to the metrics (one counter bump and one histogram sample). */
export function observedUsage(recorder: UsageRecorder, metrics: GatewayMetrics): UsageRecorder {
  return {
    record(record) {
      metrics.observeRequest(record);
      recorder.record(record);
    },
    flush: () => recorder.flush(),
    close: () => recorder.close(),
    stats: () => recorder.stats(),
  };
}
