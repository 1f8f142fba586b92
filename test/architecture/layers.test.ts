import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

// The repo's own rules (.dependency-cruiser.cjs, what `npm run lint:layers` checks) over small trees made to break them.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = join(ROOT, 'test', 'architecture', 'fixtures');

interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

async function violationsIn(fixture: string, paths: readonly string[] = ['src']): Promise<Violation[]> {
  const options: ICruiseOptions = { ...(await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.cjs'))), baseDir: join(FIXTURES, fixture), outputType: 'json' };
  const { output } = await cruise([...paths], options);
  const result = (typeof output === 'string' ? JSON.parse(output) : output) as ICruiseResult;
  const unresolved = result.modules.flatMap((module) => module.dependencies.filter((dependency) => dependency.couldNotResolve).map((dependency) => `${module.source} -> ${dependency.module}`));
  assert.deepEqual(unresolved, [], 'every import of the fixture resolves');
  return (result.summary.violations ?? []).map((violation) => ({ rule: violation.rule.name, from: violation.from, to: violation.to }));
}

describe('the layer rule (.dependency-cruiser.cjs)', () => {
  it('reports an import from a lower layer to a higher one, type-only imports too', async () => {
    const violations = await violationsIn('upward');
    assert.deepEqual(
      violations.map((violation) => `${violation.rule}: ${violation.from} -> ${violation.to}`).sort(),
      ['layer-storage: src/storage/stored-route.ts -> src/http/route-name.ts', 'layer-storage: src/storage/typed-route.ts -> src/http/route-type.ts'],
    );
  });

  it('reports a cycle', async () => {
    const violations = await violationsIn('cycle');
    const cycles = violations.filter((violation) => violation.rule === 'no-circular');
    assert.ok(cycles.length > 0, 'no-circular reported');
    assert.deepEqual([...new Set(cycles.flatMap((violation) => [violation.from, violation.to]))].sort(), ['src/limits/first-limit.ts', 'src/limits/second-limit.ts']);
    assert.deepEqual(violations.filter((violation) => violation.rule !== 'no-circular'), []);
  });

  it('reports a folder of src/ that has no layer', async () => {
    assert.deepEqual((await violationsIn('unknown')).map((violation) => `${violation.rule}: ${violation.from} -> ${violation.to}`).sort(), [
      'layer-unknown-imported: src/app.ts -> src/gadgets/gadget.ts',
      'layer-unknown: src/gadgets/gadget.ts -> src/lib/ids.ts',
    ]);
  });

  it('reports the dashboard app importing server code, not server types', async () => {
    assert.deepEqual(
      (await violationsIn('web-value', ['src', 'web/src'])).map((violation) => `${violation.rule}: ${violation.from} -> ${violation.to}`),
      ['web-server-types-only: web/src/page.ts -> src/lib/ids.ts'],
    );
  });

  it('reports nothing in a tree whose imports all point down', async () => {
    assert.deepEqual(await violationsIn('clean', ['src', 'web/src']), []);
  });
});
