import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadGlibcMalloc } from './glibc-malloc.js';
import { DEFAULT_MALLOC_ARENA_MAX, limitMallocArenas } from './malloc-arenas.js';

/** glibc's version when this Node runs on glibc (process.report says so), else undefined (musl, macOS). */
function glibcVersion(): string | undefined {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime;
}

const onGlibc = glibcVersion() !== undefined;
const addonPath = fileURLToPath(new URL('../../native/glibc-malloc/build/Release/glibc_malloc.node', import.meta.url));

test('on glibc the addon is built (npm run build) and loads; malloc_trim answers whether it released memory', () => {
  const glibc = loadGlibcMalloc();
  if (!onGlibc) {
    assert.equal(glibc, undefined);
    return;
  }
  assert.notEqual(glibc, undefined, 'native/glibc-malloc was not built: npm run build builds it (scripts/build-native.mjs)');
  // Free a few MiB of native memory (Buffers outside V8's heap), then trim: whatever it reports is a boolean.
  let buffers: Buffer[] | undefined = Array.from({ length: 64 }, () => Buffer.alloc(64 * 1024, 1));
  assert.equal(buffers.length, 64);
  buffers = undefined;
  assert.equal(typeof glibc?.mallocTrim(), 'boolean');
});

test('limitArenas takes a whole number of arenas, 1 or more, and throws a RangeError otherwise', { skip: !onGlibc }, () => {
  const glibc = loadGlibcMalloc();
  assert.ok(glibc !== undefined);
  for (const bad of [0, -1, Number.NaN]) assert.throws(() => glibc.limitArenas(bad), RangeError);
  assert.throws(() => (glibc.limitArenas as (max: unknown) => boolean)('2'), RangeError);
});

/**
 * A child Node process that starts `threads` worker threads, each allocating from glibc, after limiting the arenas
 * to `limit` (or not), and prints how many thread arenas (64 MiB-aligned anonymous reservations) it has before and
 * after. The count is read from the kernel (/proc/self/smaps), not from the addon.
 */
function threadArenas(limit: number | undefined, threads: number): { before: number; after: number } {
  const script = `
    const { readFileSync } = require('node:fs');
    const { Worker } = require('node:worker_threads');
    const ARENA = 64 * 1024 * 1024;
    const arenas = () => {
      const maps = readFileSync('/proc/self/maps', 'utf8').trim().split('\\n').map((line) => {
        const [range, perms, , , , path] = line.split(/\\s+/);
        const [start, end] = range.split('-').map((hex) => parseInt(hex, 16));
        return { start, end, perms, path: path ?? '' };
      });
      return maps.filter((map, index) => {
        const next = maps[index + 1];
        return map.path === '' && map.perms === 'rw-p' && map.start % ARENA === 0 && next !== undefined && next.start === map.end &&
          next.perms === '---p' && next.path === '' && (next.end - map.start) === ARENA;
      }).length;
    };
    const limit = ${JSON.stringify(limit ?? null)};
    if (limit !== null && !require(${JSON.stringify(addonPath)}).limitArenas(limit)) throw new Error('not taken');
    const before = arenas();
    const code = "const blocks = []; for (let i = 0; i < 2000; i += 1) blocks.push(Buffer.allocUnsafeSlow(512)); require('node:worker_threads').parentPort.postMessage(blocks.length);";
    const started = Array.from({ length: ${threads} }, () => new Promise((resolve, reject) => {
      const worker = new Worker(code, { eval: true });
      worker.once('message', resolve);
      worker.once('error', reject);
    }));
    Promise.all(started).then(() => { process.stdout.write(JSON.stringify({ before, after: arenas() })); process.exit(0); });
  `;
  // glibc's own default, whatever the environment running the tests says.
  const env = { ...process.env };
  delete env.MALLOC_ARENA_MAX;
  delete env.GLIBC_TUNABLES;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { env, encoding: 'utf8' })) as { before: number; after: number };
}

test('without a limit each thread that allocates gets an arena; with limitArenas(2) the threads share one', { skip: !onGlibc }, () => {
  const threads = 6;
  const unlimited = threadArenas(undefined, threads);
  // Control: the measure sees glibc make arenas for new threads (8 per core by default, at least 8 in all).
  assert.ok(unlimited.after - unlimited.before >= 3, `without a limit: ${JSON.stringify(unlimited)}`);
  const limited = threadArenas(DEFAULT_MALLOC_ARENA_MAX, threads);
  // The main arena is one of the two: at most one thread arena in all, whatever was made before the call.
  assert.ok(limited.after <= Math.max(limited.before, DEFAULT_MALLOC_ARENA_MAX - 1), `with limitArenas(${DEFAULT_MALLOC_ARENA_MAX}): ${JSON.stringify(limited)}`);
});

test('limitMallocArenas: the environment wins (MALLOC_ARENA_MAX, GLIBC_TUNABLES), then the addon, else nothing', () => {
  const glibc = loadGlibcMalloc();
  assert.deepEqual(limitMallocArenas({ MALLOC_ARENA_MAX: '8' }, glibc), { by: 'environment' });
  assert.deepEqual(limitMallocArenas({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=4' }, glibc), { by: 'environment' });
  assert.deepEqual(limitMallocArenas({}, undefined), { by: 'none', why: 'native/glibc-malloc is not built' });
  if (onGlibc) assert.deepEqual(limitMallocArenas({ GLIBC_TUNABLES: 'glibc.malloc.check=0' }, glibc), { by: 'gateway', max: DEFAULT_MALLOC_ARENA_MAX });
});
