import { readFileSync } from 'node:fs';
// Type-only: keeps the weights file in the TypeScript program, so the build copies it to dist/, without loading it on import.
import type weightsFileType from './weights/auto-router.json';
import type { AutoRouterModel } from './model.js';
import { decodeWeightsFile, parseWeightsFile } from './weights-file.js';

/**
 * The model shipped in weights/auto-router.json (regenerate with
 * `npm run train:router`). Read and decoded on call (about 1 MB parsed, a 1 MB
 * weight table built): call once and keep the result.
 */
export function loadShippedAutoModel(): AutoRouterModel {
  const json: unknown = JSON.parse(readFileSync(new URL('./weights/auto-router.json', import.meta.url), 'utf8')) as typeof weightsFileType;
  return decodeWeightsFile(parseWeightsFile(json));
}
