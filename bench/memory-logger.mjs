/**
 * Preload for a gateway under test (`node --import ./bench/memory-logger.mjs dist/main.js`, or
 * STREAM_HEAP_NODE_ARGS="--import <abs path>" for bench/stream-heap.ts): appends process.memoryUsage()
 * every 2 s to /tmp/memory-log-<pid>.txt (the bench keeps only the tail of a child's output).
 */
import { appendFileSync } from 'node:fs';

const started = Date.now();
const file = `/tmp/memory-log-${process.pid}.txt`;
const mib = (bytes) => (bytes / 1_048_576).toFixed(1);
setInterval(() => {
  const memory = process.memoryUsage();
  appendFileSync(
    file,
    `t=${Math.round((Date.now() - started) / 1000)}s rss=${mib(memory.rss)} heapUsed=${mib(memory.heapUsed)} heapTotal=${mib(memory.heapTotal)} external=${mib(memory.external)} arrayBuffers=${mib(memory.arrayBuffers)}\n`,
  );
}, 2_000).unref();
