import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher, buildConnector as undiciBuildConnector, errors as undiciErrors } from 'undici';

/*
 * The parts of undici the gateway uses, each from its own module rather than undici's index, which loads everything
 * undici has (fetch, WebSocket, EventSource, its caches, mocks and interceptors) for about 3 MiB of heap in every
 * process (docs/performance.md). undici has no `exports` map, so these paths are public; the
 * version is pinned by package-lock.json, and `undici-parts.test.ts` holds each part to the index's own.
 */
const load = createRequire(import.meta.url);

export const Agent = load('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export const errors = load('undici/lib/core/errors.js') as typeof undiciErrors;
export const buildConnector = load('undici/lib/core/connect.js') as typeof undiciBuildConnector;

type RequestFunction = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
const requestThrough = load('undici/lib/api/api-request.js') as RequestFunction;

/**
 * undici's `request` through `dispatcher`, given the origin and path rather than a URL: what `undici.request(url,
 * { dispatcher, ... })` does once it has parsed the URL and copied the options.
 */
export function request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return requestThrough.call(dispatcher, options);
}
