import assert from 'node:assert/strict';
import { BlockList } from 'node:net';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classifyAddress, isNonPublicAddress } from './ip-address-class.js';

/**
 * The reference: the same policy written as CIDRs and checked by Node's own
 * BlockList (a separate implementation of prefix matching, which also matches
 * IPv4 rules against IPv4-mapped IPv6 addresses). Two lists, because Node also
 * matches IPv4 addresses against IPv6 rules such as ::/8.
 */
const referenceV4 = new BlockList();
const reference = new BlockList();
for (const cidr of [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24',
  '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
]) {
  const [base, bits] = cidr.split('/');
  referenceV4.addSubnet(base ?? '', Number(bits), 'ipv4');
}
for (const cidr of ['::/8', '64:ff9b:1::/48', '100::/64', '2001::/32', '2001:db8::/32', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8']) {
  const [base, bits] = cidr.split('/');
  reference.addSubnet(base ?? '', Number(bits), 'ipv6');
}
/** The IPv6 prefixes that carry an IPv4 address (mapped, NAT64, 6to4): judged by that address, tested separately. */
const carriers = new BlockList();
carriers.addSubnet('::ffff:0:0', 96, 'ipv6');
carriers.addSubnet('64:ff9b::', 96, 'ipv6');
carriers.addSubnet('2002::', 16, 'ipv6');
const referenceBlocksV4 = (address: string) => referenceV4.check(address, 'ipv4');

const octet = fc.integer({ min: 0, max: 255 });
/** IPv4 addresses, half of them from the neighbourhoods of the special ranges (so edges are hit, not just the bulk). */
const ipv4 = fc.oneof(
  fc.ipV4(),
  fc
    .tuple(fc.constantFrom(0, 1, 9, 10, 11, 99, 100, 101, 126, 127, 128, 168, 169, 170, 171, 172, 173, 191, 192, 193, 197, 198, 199, 203, 223, 224, 239, 240, 255), octet, octet, octet)
    .map((parts) => parts.join('.')),
);
const group = fc.integer({ min: 0, max: 0xffff }).map((value) => value.toString(16));
/** IPv6 addresses outside the IPv4-carrying prefixes (mapped, NAT64, 6to4), which are judged by their IPv4 part. */
const ipv6 = fc
  .oneof(
    fc.ipV6(),
    fc
      .tuple(fc.constantFrom('0', '1', '64', '64:ff9b', '64:ff9b:1', '100', '2001', '2001:db8', '2001:db9', '2400', 'fbff', 'fc00', 'fdff', 'fe00', 'fe80', 'febf', 'fec0', 'feff', 'ff00', 'ff02'), fc.array(group, { minLength: 1, maxLength: 4 }))
      .map(([head, rest]) => `${head}::${rest.join(':')}`),
  )
  .filter((address) => !carriers.check(address, 'ipv6'));

function ipv4Parts(address: string): number[] {
  return address.split('.').map(Number);
}
function hex(parts: readonly number[], from: number): string {
  return (((parts[from] ?? 0) << 8) | (parts[from + 1] ?? 0)).toString(16);
}

describe('address classification for the SSRF guard', () => {
  it('classifies the addresses an attacker would try', () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['::1', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['fd12:3456::1', 'private'],
      ['fc00::', 'private'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['100.64.0.1', 'shared'],
      ['100.127.255.255', 'shared'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['::ffff:a9fe:a9fe', 'link-local'],
      ['0:0:0:0:0:ffff:10.0.0.1', 'private'],
      ['64:ff9b::127.0.0.1', 'loopback'],
      ['64:ff9b::a00:1', 'private'],
      ['2002:7f00:1::', 'loopback'],
      ['2002:c0a8:101::1', 'private'],
      ['::127.0.0.1', 'reserved'],
      ['64:ff9b:1::a00:1', 'private'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
      ['8.8.8.8', 'public'],
      ['172.32.0.1', 'public'],
      ['100.128.0.1', 'public'],
      ['169.255.0.1', 'public'],
      ['2606:4700:4700::1111', 'public'],
      ['::ffff:8.8.8.8', 'public'],
      ['64:ff9b::8.8.8.8', 'public'],
      ['2002:808:808::1', 'public'],
    ];
    for (const [address, expected] of cases) assert.equal(classifyAddress(address), expected, address);
  });

  it('is not an address: undefined, and refused', () => {
    for (const text of ['', 'localhost', '127.1', '0x7f.0.0.1', '2130706433', '1.2.3.4.5', '::ffff:1.2.3', 'fe80::1::2', '[::1]']) {
      assert.equal(classifyAddress(text), undefined, text);
      assert.equal(isNonPublicAddress(text), true, text);
    }
  });

  it('agrees with the BlockList reference on random IPv4 addresses', () => {
    fc.assert(fc.property(ipv4, (address) => isNonPublicAddress(address) === referenceBlocksV4(address)), { numRuns: 5000 });
  });

  it('agrees with the BlockList reference on random IPv6 addresses', () => {
    fc.assert(fc.property(ipv6, (address) => isNonPublicAddress(address) === reference.check(address, 'ipv6')), { numRuns: 5000 });
  });

  it('judges every IPv6 form carrying an IPv4 address by that address', () => {
    fc.assert(
      fc.property(ipv4, (address) => {
        const parts = ipv4Parts(address);
        const expected = classifyAddress(address);
        const forms = [
          `::ffff:${address}`,
          `::ffff:${hex(parts, 0)}:${hex(parts, 2)}`,
          `64:ff9b::${address}`,
          `64:ff9b::${hex(parts, 0)}:${hex(parts, 2)}`,
          `2002:${hex(parts, 0)}:${hex(parts, 2)}::1`,
        ];
        for (const form of forms) assert.equal(classifyAddress(form), expected, `${form} (from ${address})`);
        // And the reference agrees for the mapped form, which Node's BlockList understands natively.
        assert.equal(isNonPublicAddress(`::ffff:${address}`), referenceV4.check(`::ffff:${address}`, 'ipv6'));
      }),
      { numRuns: 3000 },
    );
  });
});
