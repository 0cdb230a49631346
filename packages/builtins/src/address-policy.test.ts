// The address rule of http_fetch as a pure function: no traffic is sent anywhere.
import { describe, expect, it } from 'vitest';
import { AddressPolicy, internalAddressReason } from './address-policy.ts';

describe('internalAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private (RFC 1918)'],
    ['172.16.0.1', 'private (RFC 1918)'],
    ['172.31.255.255', 'private (RFC 1918)'],
    ['192.168.1.1', 'private (RFC 1918)'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'shared carrier-grade NAT (RFC 6598)'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:10.0.0.1', 'private (RFC 1918)'],
    ['64:ff9b::7f00:1', 'loopback, inside IPv6'],
    ['64:ff9b::10.1.2.3', 'private (RFC 1918), inside IPv6'],
    ['2002:a9fe:a9fe::1', 'cloud metadata, inside IPv6'],
    ['localhost', 'not an IP address'],
  ])('calls %s %s', (address, reason) => {
    expect(internalAddressReason(address)).toBe(reason);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('lets the public address %s through', (address) => {
    expect(internalAddressReason(address)).toBeUndefined();
  });
});

describe('AddressPolicy', () => {
  it('refuses internal addresses by default, naming the host, the address and the option', () => {
    const policy = new AddressPolicy();
    expect(policy.refusal('127.0.0.1', '127.0.0.1', 80)).toBe(
      '127.0.0.1 is a loopback address, which http_fetch does not reach unless its allowHosts option lists it',
    );
    expect(policy.refusal('metadata.example', '169.254.169.254', 80)).toContain(
      'metadata.example (169.254.169.254) is a cloud metadata address',
    );
    expect(policy.refusal('example.com', '93.184.215.14', 443)).toBeUndefined();
  });

  it('allows by name, address, CIDR range, and port', () => {
    const policy = new AddressPolicy([
      'localhost',
      'db.internal:5984',
      '127.0.0.1:8080',
      '[::1]:9000',
      '10.0.0.0/8',
      'fd00::/8',
    ]);
    expect(policy.refusal('localhost', '127.0.0.1', 1234)).toBeUndefined();
    expect(policy.refusal('LOCALHOST', '::1', 1)).toBeUndefined();
    expect(policy.refusal('db.internal', '192.168.0.9', 5984)).toBeUndefined();
    expect(policy.refusal('db.internal', '192.168.0.9', 5985)).toBeDefined();
    expect(policy.refusal('127.0.0.1', '127.0.0.1', 8080)).toBeUndefined();
    expect(policy.refusal('127.0.0.1', '127.0.0.1', 8081)).toBeDefined();
    expect(policy.refusal('::1', '::1', 9000)).toBeUndefined();
    expect(policy.refusal('::1', '::1', 9001)).toBeDefined();
    expect(policy.refusal('10.9.8.7', '10.9.8.7', 1)).toBeUndefined();
    expect(policy.refusal('fd00::5', 'fd00::5', 1)).toBeUndefined();
    // A name resolving inside is not allowed by the range of another name's address.
    expect(policy.refusal('other.internal', '192.168.0.9', 5984)).toBeDefined();
    expect(
      policy.refusal('169.254.169.254', '169.254.169.254', 80),
    ).toBeDefined();
  });

  it.each([
    'http://localhost',
    'localhost/x',
    '10.0.0.0/33',
    'not a host',
    '127.0.0.1:99999',
    '',
    42,
  ])('rejects the entry %j with a TypeError naming allowHosts', (entry) => {
    expect(() => new AddressPolicy([entry as string])).toThrow(
      /allowHosts entries/,
    );
  });

  it('rejects a non-array allowHosts', () => {
    expect(() => new AddressPolicy('localhost' as never)).toThrow(
      /allowHosts must be an array/,
    );
  });
});
