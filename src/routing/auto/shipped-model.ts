import weightsJson from './weights/auto-router.json' with { type: 'json' };
import type { AutoRouterModel } from './model.js';
import { decodeWeightsFile, parseWeightsFile } from './weights-file.js';

/**
 * The model shipped in weights/auto-router.json (regenerate with
 * `npm run train:router`). Decoding builds a 1 MB weight table: call once and
 * keep the result.
 */
export function loadShippedAutoModel(): AutoRouterModel {
  const json: unknown = weightsJson;
  return decodeWeightsFile(parseWeightsFile(json));
}
