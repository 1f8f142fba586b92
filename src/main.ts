// The entry point (`node dist/main.js`, `npm start`, and each MODELPORT_WORKERS worker). It imports nothing heavy
// itself: the young generation is held at its initial size before the gateway's code loads (src/lib/startup-heap.ts),
// and given its usual growth back once the process is started.
import { holdYoungGeneration, nodeOptionsOf } from './lib/startup-heap.js';

const releaseYoungGeneration = holdYoungGeneration(nodeOptionsOf(process));
const { serve, startFailureMessage } = await import('./serve.js');
serve({ started: releaseYoungGeneration }).catch((error: unknown) => {
  process.stderr.write(`${startFailureMessage(error)}\n`);
  process.exit(1);
});
