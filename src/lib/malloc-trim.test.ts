import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadMallocTrim } from './malloc-trim.js';

/** glibc's version when this Node runs on glibc (process.report says so), else undefined (musl, macOS). */
function glibcVersion(): string | undefined {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime;
}

test('on glibc the addon is built (npm run build) and loads; malloc_trim answers whether it released memory', () => {
  const trim = loadMallocTrim();
  if (glibcVersion() === undefined) {
    assert.equal(trim, undefined);
    return;
  }
  assert.equal(typeof trim, 'function', 'native/malloc-trim was not built: npm run build builds it (scripts/build-native.mjs)');
  // Free a few MiB of native memory (Buffers outside V8's heap), then trim: whatever it reports is a boolean.
  let buffers: Buffer[] | undefined = Array.from({ length: 64 }, () => Buffer.alloc(64 * 1024, 1));
  assert.equal(buffers.length, 64);
  buffers = undefined;
  assert.equal(typeof trim?.(), 'boolean');
});
