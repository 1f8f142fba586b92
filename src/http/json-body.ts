import { errors } from '../lib/errors.js';

/**
 * Deepest nesting a request body may have. OpenAI's own structured-output
 * schemas stop at a few levels; anything near this is hostile, and deeper
 * values would overflow the stack of whatever serialises them later.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Parses a request body. `JSON.parse` without a reviver is iterative in V8, so
 * no input can overflow the stack here; one iterative walk then drops own
 * `__proto__` keys (so a body can never reach Object.prototype when copied)
 * and refuses nesting deeper than MAX_JSON_DEPTH.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw errors.invalidJson('The request body is empty; send a JSON object.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.invalidJson();
  }
  const pending: Array<{ node: object; depth: number }> = [];
  if (typeof value === 'object' && value !== null) pending.push({ node: value, depth: 1 });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > MAX_JSON_DEPTH) throw errors.invalidJson(`The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
    if (!Array.isArray(next.node) && Object.hasOwn(next.node, '__proto__')) delete (next.node as Record<string, unknown>)['__proto__'];
    for (const child of Object.values(next.node)) {
      if (typeof child === 'object' && child !== null) pending.push({ node: child as object, depth: next.depth + 1 });
    }
  }
  return value;
}
