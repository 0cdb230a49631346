// IPv6 forms that carry an IPv4 address the first address rule let through, as a pure function:
// no traffic is sent anywhere. IPv4-compatible `::a.b.c.d` (deprecated by RFC 4291, section
// 2.5.5.1), IPv4-translated `::ffff:0:a.b.c.d` (RFC 2765) and local-use NAT64 `64:ff9b:1::/48`
// (RFC 8215) are none of them a public destination; a stack or a NAT64 gateway that maps them
// to their IPv4 address would reach loopback or a private network.
import { describe, expect, it } from 'vitest';
import { AddressPolicy, internalAddressReason } from './address-policy.ts';

describe('internalAddressReason, IPv6 forms that carry IPv4', () => {
  it.each([
    ['::7f00:1', 'IPv4-compatible (deprecated)'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['::a9fe:a9fe', 'IPv4-compatible (deprecated)'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated)'],
    ['::ffff:0:7f00:1', 'IPv4-translated (RFC 2765)'],
    ['::ffff:0:169.254.169.254', 'IPv4-translated (RFC 2765)'],
    ['64:ff9b:1::7f00:1', 'local-use NAT64 (RFC 8215)'],
    ['64:ff9b:1:ffff::1', 'local-use NAT64 (RFC 8215)'],
  ])('calls %s %s', (address, reason) => {
    expect(internalAddressReason(address)).toBe(reason);
  });

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('keeps the narrower word for %s (%s)', (address, reason) => {
    expect(internalAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '::ffff:8.8.8.8', '64:ff9b::808:808', '2606:4700::1111'])(
    'still lets the public address %s through',
    (address) => {
      expect(internalAddressReason(address)).toBeUndefined();
    },
  );

  it('refuses them in the policy too, unless a CIDR entry lists them', () => {
    expect(new AddressPolicy().refusal('::7f00:1', '::7f00:1', 80)).toContain(
      'IPv4-compatible',
    );
    expect(
      new AddressPolicy(['::/96']).refusal('::7f00:1', '::7f00:1', 80),
    ).toBeUndefined();
  });
});
