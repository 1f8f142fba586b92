import type { IncomingMessage } from 'node:http';
import { errors, type GatewayError } from '../lib/errors.js';
import { queryStringDefect } from './query-string.js';

/**
 * Most headers a request may carry. Node stops reading headers past its limit and drops the rest silently (a Host
 * or Authorization after them would vanish); the server is given this limit and a request that reaches it is
 * refused with 431 instead. Browsers and SDKs send a few dozen.
 */
export const MAX_REQUEST_HEADERS = 1000;

/** Headers named Host, in any case (Node keeps only the first of several in `headers`). */
function hostHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host')) count += 1;
  }
  return count;
}

/**
 * What is wrong with a request that Node's parser let through, checked in the first hook of every request: an HTTP
 * version other than 1.x (a request line without one is HTTP/0.9 to the parser), a missing Host on HTTP/1.1 or more
 * than one (RFC 9112 §3.2: 400 for either), more headers than the server reads, and a query string that breaks the
 * query rule (query-string.ts). Node would answer a missing Host itself with an empty 400 and take the first of two;
 * the server turns that off (`requireHostHeader: false`) so every refusal is in the error shape.
 */
export function requestDefect(raw: IncomingMessage, query: unknown): GatewayError | undefined {
  if (raw.httpVersionMajor !== 1) return errors.malformedHttp('the request line must end with HTTP/1.1 or HTTP/1.0.');
  const rawHeaders = raw.rawHeaders;
  if (rawHeaders.length > 2 * MAX_REQUEST_HEADERS) return errors.headersTooLarge(MAX_REQUEST_HEADERS);
  const hosts = hostHeaders(rawHeaders);
  if (hosts > 1) return errors.malformedHttp('it has more than one Host header.');
  if (hosts === 0 && raw.httpVersionMinor === 1) return errors.malformedHttp('it has no Host header.');
  return queryStringDefect(query);
}
