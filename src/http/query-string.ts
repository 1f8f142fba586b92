import { errors, type GatewayError } from '../lib/errors.js';

/**
 * Longest key or value (decoded) a query parameter may have. Every value the API reads from a query is an id, a
 * number, a time or a word; nothing legitimate comes close.
 */
export const MAX_QUERY_PARAMETER_LENGTH = 512;

/** Where the parser leaves the first thing wrong with a query string, for `queryStringDefect` to find. */
const DEFECT = Symbol('query string defect');

/** A parsed query: one string per key, never an array (a repeated key is a defect, not a list). */
export type ParsedQuery = Record<string, string>;

type QueryWithDefect = ParsedQuery & { [DEFECT]?: GatewayError };

/** An object without a prototype, so a key such as `__proto__` or `constructor` is only ever a key. */
const NoPrototype = function (this: object) {} as unknown as new () => ParsedQuery;
NoPrototype.prototype = Object.create(null) as object;

const CONTROL_CHARACTER = /\p{Cc}/u;
const PLUS = /\+/g;

/** `+` is a space in a query (HTML forms); `undefined` when the percent-encoding is malformed or not UTF-8. */
function decode(text: string): string | undefined {
  const spaced = text.includes('+') ? text.replace(PLUS, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/** A key as `param` and in a message: clipped, since a key can be as long as the request line. */
function named(key: string): string {
  return key.length <= 64 ? key : `${key.slice(0, 64)}…`;
}

function defect(query: QueryWithDefect, message: string, key: string): QueryWithDefect {
  query[DEFECT] = errors.invalidRequest(message, named(key));
  return query;
}

/**
 * Fastify's query-string parser (`routerOptions.querystringParser`). It never throws (it runs inside the router's
 * lookup, where an exception would escape Fastify): it stops at the first key that is repeated, longer than
 * {@link MAX_QUERY_PARAMETER_LENGTH}, holds a control character or a malformed percent-encoding, and records why;
 * `queryStringDefect` reads that in the first hook of every request, so the rule holds for every route at once.
 * No route takes a list from the query, so a repeated key is refused rather than turned into an array that handlers
 * (typed for a string) would misuse.
 */
export function parseQueryString(text: string): ParsedQuery {
  // The chat completion path carries no query string: the same allocation as Fastify's own parser, nothing more.
  if (text.length === 0) return {};
  const query: QueryWithDefect = new NoPrototype();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawKey = equals < 0 ? pair : pair.slice(0, equals);
    const key = decode(rawKey);
    const value = decode(equals < 0 ? '' : pair.slice(equals + 1));
    if (key === undefined || value === undefined) {
      const name = key ?? rawKey;
      return defect(query, `Query parameter '${named(name)}' has a malformed percent-encoding.`, name);
    }
    if (key.length > MAX_QUERY_PARAMETER_LENGTH || value.length > MAX_QUERY_PARAMETER_LENGTH) {
      return defect(query, `Query parameter '${named(key)}' is longer than ${MAX_QUERY_PARAMETER_LENGTH} characters.`, key);
    }
    if (CONTROL_CHARACTER.test(key) || CONTROL_CHARACTER.test(value)) {
      return defect(query, `Query parameter '${named(key)}' holds a control character.`, key);
    }
    if (Object.hasOwn(query, key)) return defect(query, `Query parameter '${named(key)}' is given more than once; give it once.`, key);
    query[key] = value;
  }
  return query;
}

/** What `parseQueryString` found wrong with this request's query, if anything (400 `invalid_value`, `param` the key). */
export function queryStringDefect(query: unknown): GatewayError | undefined {
  return (query as QueryWithDefect)[DEFECT];
}
