import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { capYoungGeneration, youngGenerationMiB, type YoungGenerationProbe } from './young-generation-cap.js';

const MODULE = fileURLToPath(new URL('./young-generation-cap.ts', import.meta.url));

/**
 * In a fresh Node process: one semi-space's capacity (MiB) after a load whose objects survive scavenges (what makes V8
 * grow the young generation), allocated a slice per event-loop turn as a server does, with the cap at `capMiB`.
 */
function semiSpaceAfterLoad(capMiB: number, nodeArgs: readonly string[] = []): number {
  const script = `
    import v8 from 'node:v8';
    import { capYoungGeneration } from ${JSON.stringify(MODULE)};
    capYoungGeneration(process.execArgv, ${capMiB});
    let kept = [];
    for (let i = 0; i < 8e6; i++) {
      kept.push({ i });
      if (kept.length > 200000) kept = [];
      if (i % 20000 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const now = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    process.stdout.write(String((now.space_used_size + now.space_available_size) / 1048576));
  `;
  return Number(execFileSync(process.execPath, [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }));
}

test('the young generation grows up to the cap and no further; without a cap, past it', () => {
  const capped = semiSpaceAfterLoad(4);
  const uncapped = semiSpaceAfterLoad(0);
  assert.ok(capped > 2 && capped <= 4, `capped at 4 MiB: ${capped}`);
  assert.ok(uncapped > 4, `uncapped: ${uncapped}`);
});

test("an operator's own --max-semi-space-size is left alone", () => {
  assert.ok(semiSpaceAfterLoad(2, ['--max-semi-space-size=8']) > 4);
});

/** A young generation the test sizes, and the growth factors set on it. */
function fakeProbe(sizes: number[]): { probe: YoungGenerationProbe; factors: number[]; collect: () => void; unsubscribed: () => boolean } {
  const factors: number[] = [];
  let callback: (() => void) | undefined;
  let stopped = false;
  return {
    factors,
    probe: {
      semiSpaceMiB: () => sizes[0] ?? 0,
      setGrowthFactor: (factor) => factors.push(factor),
      afterCollections(next) {
        callback = next;
        return () => {
          stopped = true;
        };
      },
    },
    collect() {
      sizes.shift();
      callback?.();
    },
    unsubscribed: () => stopped,
  };
}

test('growth stops at the cap, starts again once V8 shrank the young generation, and is set only when it changes', () => {
  const fake = fakeProbe([1, 2, 4, 7.86, 7.86, 1, 1]);
  const stop = capYoungGeneration([], 8, fake.probe);
  for (let i = 0; i < 6; i++) fake.collect();
  assert.deepEqual(fake.factors, [2, 1, 2]);
  stop();
  assert.ok(fake.unsubscribed());
});

test('0, or a growth flag of the operator, leaves V8 alone', () => {
  for (const [options, mib] of [[[], 0], [['--semi_space_growth_factor=3'], 8], [['--max-semi-space-size=32'], 8]] as const) {
    const fake = fakeProbe([1, 16]);
    capYoungGeneration(options, mib, fake.probe);
    fake.collect();
    assert.deepEqual(fake.factors, []);
  }
});

test('MODELPORT_YOUNG_GENERATION_MIB takes 0 or a power of two up to 64', () => {
  assert.equal(youngGenerationMiB(undefined, 8), 8);
  assert.equal(youngGenerationMiB(' ', 8), 8);
  assert.equal(youngGenerationMiB('0', 8), 0);
  assert.equal(youngGenerationMiB('16', 8), 16);
  for (const bad of ['3', '-8', '128', 'eight', '8.5']) assert.throws(() => youngGenerationMiB(bad, 8), /power of two/);
});
