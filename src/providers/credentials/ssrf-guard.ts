import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { classifyAddress, type AddressClass } from './ip-address-class.js';
import { buildConnector } from '../transport/undici-parts.js';

/**
 * The guard on upstream addresses the operator did not set: base URLs owners
 * supply (bring-your-own-key providers) and the presets' default addresses. They
 * may point anywhere on the internet, never at the gateway's own network
 * (loopback, private ranges, link-local and cloud metadata, CGNAT…) unless the
 * operator sets MODELPORT_ALLOW_PRIVATE_UPSTREAMS=true. Checked twice:
 *
 * - when an owner's URL is saved (`checkUpstreamBaseUrl`), with a clear message;
 * - at every connection (`createGuardedDispatcher`): the dispatcher resolves the
 *   host itself, checks every address, and hands exactly those addresses to the
 *   socket. What was checked is what is connected to, so a DNS answer that
 *   changes after the save (DNS rebinding) is caught, with no gap between check and use.
 */

export const ALLOW_PRIVATE_HINT = 'upstreams on private networks are allowed only when the operator sets MODELPORT_ALLOW_PRIVATE_UPSTREAMS=true (for the gateway and the CLI)';

/** The code of the connection error a refused address raises (shown in `_meta.attempts`). */
export const BLOCKED_ADDRESS_CODE = 'ERR_UPSTREAM_ADDRESS_NOT_ALLOWED';

export class UpstreamUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamUrlError';
  }
}

/** Resolves a host name to all its addresses. */
export type HostResolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export const resolveAllAddresses: HostResolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

export interface UpstreamUrlPolicy {
  /** MODELPORT_ALLOW_PRIVATE_UPSTREAMS */
  readonly allowPrivate: boolean;
  /** @default resolveAllAddresses (the system resolver) */
  readonly resolve?: HostResolver;
}

const DESCRIPTIONS: Readonly<Record<Exclude<AddressClass, 'public'>, string>> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  'link-local': 'a link-local address (cloud metadata lives there)',
  unspecified: 'an unspecified address',
  shared: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** Why an address may not be reached, or undefined when it may. */
export function refusalReason(hostname: string, address: string): string | undefined {
  const kind = classifyAddress(address);
  if (kind === 'public') return undefined;
  const what = kind === undefined ? 'not an IP address' : DESCRIPTIONS[kind];
  return hostname === address ? `${address} is ${what}` : `${hostname} resolves to ${address}, ${what}`;
}

/**
 * The syntax rules, without DNS: http or https, no credentials in the URL (the key
 * has its own field), no query or fragment (paths are appended to it). Returns the
 * normalised URL without trailing slashes.
 */
export function parseUpstreamBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UpstreamUrlError(`"${raw}" is not a URL; write e.g. https://llm.example.com/v1.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UpstreamUrlError(`The base URL must be http:// or https://, not ${url.protocol}//.`);
  if (url.username !== '' || url.password !== '') throw new UpstreamUrlError('The base URL must not carry credentials; give the key with --api-key or --api-key-stdin.');
  if (url.search !== '' || url.hash !== '') throw new UpstreamUrlError('The base URL must not have a query string or fragment.');
  return url.href.replace(/\/+$/, '');
}

/** The save-time check: the syntax rules, then (unless private upstreams are allowed) every address the host resolves to. */
export async function checkUpstreamBaseUrl(raw: string, policy: UpstreamUrlPolicy): Promise<string> {
  const normalised = parseUpstreamBaseUrl(raw);
  if (policy.allowPrivate) return normalised;
  const hostname = new URL(normalised).hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: readonly LookupAddress[];
  if (isIP(hostname) !== 0) addresses = [{ address: hostname, family: isIP(hostname) }];
  else {
    try {
      addresses = await (policy.resolve ?? resolveAllAddresses)(hostname);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown error';
      throw new UpstreamUrlError(`Could not resolve ${hostname} (${code}).`);
    }
  }
  if (addresses.length === 0) throw new UpstreamUrlError(`${hostname} resolves to no address.`);
  for (const { address } of addresses) {
    const reason = refusalReason(hostname, address);
    if (reason !== undefined) throw new UpstreamUrlError(`Refused base URL: ${reason}; ${ALLOW_PRIVATE_HINT}.`);
  }
  return normalised;
}

function blockedError(reason: string): Error {
  return Object.assign(new Error(`Refused upstream address: ${reason}`), { code: BLOCKED_ADDRESS_CODE });
}

/**
 * A lookup for sockets that refuses non-public answers. It answers in the shape
 * the socket asked for (`all` with happy eyeballs, one address otherwise), so the
 * socket connects only to addresses that were checked.
 */
export function createGuardedLookup(lookup: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, result) => {
      if (error) return callback(error, '', 0);
      const addresses: LookupAddress[] = typeof result === 'string' ? [{ address: result, family: isIP(result) }] : result;
      for (const { address } of addresses) {
        const reason = refusalReason(hostname, address);
        if (reason !== undefined) return callback(blockedError(reason), '', 0);
      }
      const first = addresses[0];
      if (first === undefined) return callback(Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all === true) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * A connection pool for upstreams the operator did not set. Literal IP hosts never
 * reach a lookup, so they are checked here; names go through the guarded lookup.
 */
export function createGuardedDispatcher(timeouts: UpstreamTimeouts, lookup?: LookupFunction): Dispatcher {
  const connect = buildConnector({ timeout: timeouts.connectMs, lookup: createGuardedLookup(lookup) });
  return createUpstreamDispatcher(timeouts, (options, callback) => {
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0) {
      const reason = refusalReason(host, host);
      if (reason !== undefined) return callback(blockedError(reason), null);
    }
    return connect(options, callback);
  });
}
