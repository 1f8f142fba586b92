// The entry point (`node dist/main.js`, `npm start`, and each MODELPORT_WORKERS worker). It imports nothing heavy
// itself: the young generation is held at its initial size before the gateway's code loads (src/lib/startup-heap.ts),
// and given its usual growth back once the process is started.
import { loadGlibcMalloc } from './lib/glibc-malloc.js';
import { DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent, limitHeapGrowth } from './lib/heap-growth.js';
import { limitMallocArenas } from './lib/malloc-arenas.js';
import { holdYoungGeneration, nodeOptionsOf } from './lib/startup-heap.js';
import { DEFAULT_YOUNG_GENERATION_MIB, capYoungGeneration, youngGenerationMiB } from './lib/young-generation-cap.js';

// Read before anything else loads; a bad value ends the start with its message alone.
let growingPercent: number;
let youngCapMiB: number;
try {
  growingPercent = heapGrowingPercent(process.env.MODELPORT_HEAP_GROWING_PERCENT, DEFAULT_HEAP_GROWING_PERCENT);
  youngCapMiB = youngGenerationMiB(process.env.MODELPORT_YOUNG_GENERATION_MIB, DEFAULT_YOUNG_GENERATION_MIB);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
// glibc's arenas: before the gateway's threads start allocating (src/lib/malloc-arenas.ts).
limitMallocArenas(process.env, loadGlibcMalloc());
const nodeOptions = nodeOptionsOf(process);
// The old generation's headroom over what is live (src/lib/heap-growth.ts): held streams' RSS.
limitHeapGrowth(nodeOptions, growingPercent);
const releaseYoungGeneration = holdYoungGeneration(nodeOptions);
// Once started, the young generation grows as V8 grows it, up to its cap (src/lib/young-generation-cap.ts).
const started = () => {
  releaseYoungGeneration();
  capYoungGeneration(nodeOptions, youngCapMiB);
};
const { serve, startFailureMessage } = await import('./serve.js');
serve({ started }).catch((error: unknown) => {
  process.stderr.write(`${startFailureMessage(error)}\n`);
  process.exit(1);
});
