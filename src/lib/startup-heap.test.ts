import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { nodeOptionsOf } from './startup-heap.js';

const MODULE = fileURLToPath(new URL('./startup-heap.ts', import.meta.url));

/**
 * In a fresh Node process: the young generation's size (MiB) after allocating objects that survive, while held,
 * then after release and more of the same. V8 only grows the young generation when much of it survives scavenges.
 */
function youngGenerationSizes(nodeArgs: readonly string[] = []): { before: number; held: number; released: number } {
  const script = `
    import v8 from 'node:v8';
    import { holdYoungGeneration, nodeOptionsOf } from ${JSON.stringify(MODULE)};
    const release = holdYoungGeneration(nodeOptionsOf(process));
    const young = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 1048576;
    const churn = () => { let kept = []; for (let i = 0; i < 2e6; i++) { kept.push({ i }); if (kept.length > 200000) kept = []; } };
    const before = young();
    churn();
    const held = young();
    release();
    churn();
    process.stdout.write(JSON.stringify({ before, held, released: young() }));
  `;
  const out = execFileSync(process.execPath, [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out) as { before: number; held: number; released: number };
}

// (tsx, loaded first to run this TypeScript, may already have grown it a step: the sizes are compared, not fixed.)
test('the young generation does not grow while held, and grows as usual once released', () => {
  const sizes = youngGenerationSizes();
  assert.equal(sizes.held, sizes.before, JSON.stringify(sizes));
  assert.ok(sizes.released > sizes.held, JSON.stringify(sizes));
});

test("an operator's own --semi-space-growth-factor is left alone", () => {
  const sizes = youngGenerationSizes(['--semi-space-growth-factor=4']);
  assert.ok(sizes.held > sizes.before, JSON.stringify(sizes));
});

test('node options come from the command line, then NODE_OPTIONS', () => {
  assert.deepEqual(nodeOptionsOf({ execArgv: ['--cpu-prof'], env: { NODE_OPTIONS: ' --max-old-space-size=512  --semi_space_growth_factor=3 ' } }), [
    '--cpu-prof',
    '--max-old-space-size=512',
    '--semi_space_growth_factor=3',
  ]);
  assert.deepEqual(nodeOptionsOf({ execArgv: [], env: {} }), []);
});
