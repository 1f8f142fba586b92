/**
 * Preload for a gateway under test (`node --import ./bench/memory-map.mjs dist/main.js`, or
 * STREAM_HEAP_NODE_ARGS="--import <abs path>" for bench/stream-heap.ts): every MEMORY_MAP_INTERVAL_S seconds (5)
 * appends to /tmp/memory-map-<pid>.txt where the process's resident memory is:
 *
 * - `process.memoryUsage()` and V8's committed and used size per heap space;
 * - `/proc/self/smaps` by kind: file-backed, glibc's main arena (`[heap]`), glibc's thread arenas (64 MiB-aligned
 *   reservations whose tail is unmapped), WebAssembly memories (a read-write start followed by a reservation of
 *   several GiB: V8's guard regions; undici's llhttp), the rest of the anonymous memory (V8's heap pages, its code,
 *   Node's own mmaps), stacks.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const ARENA = 64 * 1024 * 1024;
const WASM_RESERVATION = 4 * 1024 * 1024 * 1024;
const started = Date.now();
const file = `/tmp/memory-map-${process.pid}.txt`;
const mib = (bytes) => (bytes / 1_048_576).toFixed(1);

/** The mappings of /proc/self/smaps: start, end, permissions, path, Rss bytes. */
function mappings() {
  const result = [];
  let current;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) {
      current = { start: parseInt(header[1], 16), end: parseInt(header[2], 16), perms: header[3], path: header[4], rss: 0 };
      result.push(current);
    } else if (current !== undefined && line.startsWith('Rss:')) {
      current.rss = Number(line.split(/\s+/)[1]) * 1024;
    }
  }
  return result;
}

/** Resident bytes by kind of mapping. */
function byKind() {
  const all = mappings();
  const kinds = { file: 0, mainArena: 0, threadArenas: 0, threadArenaCount: 0, wasm: 0, wasmCount: 0, stack: 0, otherAnon: 0, largestOtherAnon: [] };
  for (let index = 0; index < all.length; index += 1) {
    const map = all[index];
    const next = all[index + 1];
    const size = map.end - map.start;
    if (map.path === '[heap]') kinds.mainArena += map.rss;
    else if (map.path.startsWith('[stack')) kinds.stack += map.rss;
    else if (map.path !== '' && !map.path.startsWith('[')) kinds.file += map.rss;
    else if (map.path !== '') kinds.otherAnon += map.rss;
    else if (map.perms.startsWith('rw') && next?.start === map.end && next.perms === '---p' && next.path === '' && next.end - map.start >= WASM_RESERVATION) {
      kinds.wasm += map.rss;
      kinds.wasmCount += 1;
    } else if (map.perms.startsWith('rw') && map.start % ARENA === 0 && next?.start === map.end && next.perms === '---p' && (next.end - map.start) % ARENA === 0 && next.end - map.start <= 4 * ARENA) {
      kinds.threadArenas += map.rss;
      kinds.threadArenaCount += 1;
    } else {
      kinds.otherAnon += map.rss;
      if (map.rss > 4 * 1024 * 1024) kinds.largestOtherAnon.push(`${mib(map.rss)}/${mib(size)}`);
    }
  }
  kinds.largestOtherAnon = kinds.largestOtherAnon.sort((a, b) => parseFloat(b) - parseFloat(a)).slice(0, 6);
  return kinds;
}

function sample() {
  const memory = process.memoryUsage();
  const heap = getHeapStatistics();
  const spaces = getHeapSpaceStatistics()
    .map((space) => `${space.space_name.replace('_space', '')}=${mib(space.physical_space_size)}/${mib(space.space_used_size)}`)
    .join(' ');
  const kinds = byKind();
  appendFileSync(
    file,
    `t=${Math.round((Date.now() - started) / 1000)}s rss=${mib(memory.rss)} heapTotal=${mib(memory.heapTotal)} heapUsed=${mib(memory.heapUsed)} ` +
      `external=${mib(memory.external)} arrayBuffers=${mib(memory.arrayBuffers)} v8physical=${mib(heap.total_physical_size)} v8malloced=${mib(heap.malloced_memory)}\n` +
      `  spaces (committed/used): ${spaces}\n` +
      `  smaps Rss: file=${mib(kinds.file)} mainArena=${mib(kinds.mainArena)} threadArenas=${mib(kinds.threadArenas)} (${kinds.threadArenaCount}) ` +
      `wasm=${mib(kinds.wasm)} (${kinds.wasmCount}) stack=${mib(kinds.stack)} otherAnon=${mib(kinds.otherAnon)} largest other [rss/size]: ${kinds.largestOtherAnon.join(' ')}\n`,
  );
}

setInterval(sample, Number(process.env.MEMORY_MAP_INTERVAL_S ?? '5') * 1000).unref();
