import { isIPv4, isIPv6 } from 'node:net';

/**
 * What kind of address an IP is, for the SSRF guard: only `public` addresses may
 * be reached through an owner-supplied base URL (unless the operator allows
 * private upstreams). IPv6 forms that carry an IPv4 address (mapped
 * `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4
 * address inside.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'shared' | 'multicast' | 'reserved';

type Range = readonly [base: readonly number[], prefixBits: number, kind: Exclude<AddressClass, 'public'>];

/** IANA IPv4 special-purpose registry, the parts no public API lives in. */
const IPV4_RANGES: readonly Range[] = [
  [[0, 0, 0, 0], 8, 'unspecified'], // "this network"
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'shared'], // carrier-grade NAT
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local'], // includes 169.254.169.254, cloud metadata
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved'],
  [[192, 0, 2, 0], 24, 'reserved'],
  [[192, 88, 99, 0], 24, 'reserved'],
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'reserved'],
  [[198, 51, 100, 0], 24, 'reserved'],
  [[203, 0, 113, 0], 24, 'reserved'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'], // includes 255.255.255.255
];

/** IPv6 ranges as 16 bytes; checked after the IPv4-carrying forms. */
const IPV6_RANGES: readonly Range[] = [
  [bytes6([0, 0, 0, 0, 0, 0, 0, 0]), 128, 'unspecified'],
  [bytes6([0, 0, 0, 0, 0, 0, 0, 1]), 128, 'loopback'],
  [bytes6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0]), 48, 'private'], // local-use NAT64
  [bytes6([0, 0, 0, 0, 0, 0, 0, 0]), 8, 'reserved'], // IPv4-compatible and other IETF reserved forms
  [bytes6([0x100, 0, 0, 0, 0, 0, 0, 0]), 64, 'reserved'], // discard-only
  [bytes6([0x2001, 0, 0, 0, 0, 0, 0, 0]), 32, 'reserved'], // Teredo
  [bytes6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]), 32, 'reserved'], // documentation
  [bytes6([0xfc00, 0, 0, 0, 0, 0, 0, 0]), 7, 'private'], // unique local
  [bytes6([0xfe80, 0, 0, 0, 0, 0, 0, 0]), 10, 'link-local'],
  [bytes6([0xfec0, 0, 0, 0, 0, 0, 0, 0]), 10, 'private'], // site-local (deprecated)
  [bytes6([0xff00, 0, 0, 0, 0, 0, 0, 0]), 8, 'multicast'],
];

const MAPPED_PREFIX = bytes6([0, 0, 0, 0, 0, 0xffff, 0, 0]);
const NAT64_PREFIX = bytes6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0]);
const SIX_TO_FOUR_PREFIX = bytes6([0x2002, 0, 0, 0, 0, 0, 0, 0]);

/** The class of an IP address in any textual form Node accepts, or undefined when the text is not an IP address. */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4 = parseIPv4(address);
  if (v4 !== undefined) return classifyIPv4(v4);
  const v6 = parseIPv6(address);
  return v6 === undefined ? undefined : classifyIPv6(v6);
}

/** True for every address an owner-supplied upstream may not reach; text that is not an IP address is refused too. */
export function isNonPublicAddress(address: string): boolean {
  return classifyAddress(address) !== 'public';
}

function classifyIPv4(address: readonly number[]): AddressClass {
  for (const [base, bits, kind] of IPV4_RANGES) if (inPrefix(address, base, bits)) return kind;
  return 'public';
}

function classifyIPv6(address: readonly number[]): AddressClass {
  if (inPrefix(address, MAPPED_PREFIX, 96) || inPrefix(address, NAT64_PREFIX, 96)) return classifyIPv4(address.slice(12));
  if (inPrefix(address, SIX_TO_FOUR_PREFIX, 16)) return classifyIPv4(address.slice(2, 6));
  for (const [base, bits, kind] of IPV6_RANGES) if (inPrefix(address, base, bits)) return kind;
  return 'public';
}

function inPrefix(address: readonly number[], base: readonly number[], bits: number): boolean {
  for (let index = 0; index * 8 < bits; index += 1) {
    const remaining = bits - index * 8;
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    if (((address[index] ?? 0) & mask) !== ((base[index] ?? 0) & mask)) return false;
  }
  return true;
}

function parseIPv4(text: string): number[] | undefined {
  return isIPv4(text) ? text.split('.').map(Number) : undefined;
}

/** 16 bytes, or undefined. A zone (`fe80::1%eth0`) is ignored; an IPv4 tail (`::ffff:1.2.3.4`) is read as the last 4 bytes. */
function parseIPv6(input: string): number[] | undefined {
  const zone = input.indexOf('%');
  let text = zone >= 0 ? input.slice(0, zone) : input;
  if (!isIPv6(text)) return undefined;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = v4;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string | undefined) => (part === undefined || part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const left = groupsOf(halves[0]);
  const right = groupsOf(halves[1]);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...left, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right];
  const bytes = bytes6(groups);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

function bytes6(groups: readonly number[]): number[] {
  return groups.flatMap((group) => [(group >> 8) & 0xff, group & 0xff]);
}
