import assert from 'node:assert/strict';

export function isFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Reads `path` (dot-separated) in `value`, failing with the path when a step is missing. */
export function field(value: unknown, path: string): unknown {
  let current = value;
  for (const step of path.split('.')) {
    assert.ok(typeof current === 'object' && current !== null && step in current, `result has no ${path}`);
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}
