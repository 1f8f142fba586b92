// The entry point (`node dist/main.js`, `npm start`, and each MODELPORT_WORKERS worker). It imports nothing heavy
// itself: the young generation is held at its initial size before the gateway's code loads (src/lib/startup-heap.ts),
// and given its usual growth back once the process is started.
import { DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent, limitHeapGrowth } from './lib/heap-growth.js';
import { holdYoungGeneration, nodeOptionsOf } from './lib/startup-heap.js';

// The old generation's headroom over what is live (src/lib/heap-growth.ts): held streams' RSS.
limitHeapGrowth(nodeOptionsOf(process), heapGrowingPercent(process.env.MODELPORT_HEAP_GROWING_PERCENT, DEFAULT_HEAP_GROWING_PERCENT));
const releaseYoungGeneration = holdYoungGeneration(nodeOptionsOf(process));
const { serve, startFailureMessage } = await import('./serve.js');
serve({ started: releaseYoungGeneration }).catch((error: unknown) => {
  process.stderr.write(`${startFailureMessage(error)}\n`);
  process.exit(1);
});
