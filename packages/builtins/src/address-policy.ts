import { BlockList, isIP, isIPv4 } from 'node:net';

/**
 * The address ranges `http_fetch` does not reach unless told to, each with the word the
 * refusal uses. IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) match their IPv4 range:
 * `BlockList` checks them so. Sources: the IANA special-purpose address registries (RFC 6890).
 */
const INTERNAL_RANGES: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'shared carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.169.254', 32, 'cloud metadata'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  // Forms that carry an IPv4 address and are no public destination (after `::` and `::1`, which
  // they contain, so that those keep their own word).
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['::ffff:0:0:0', 96, 'IPv4-translated (RFC 2765)'],
  ['64:ff9b:1::', 48, 'local-use NAT64 (RFC 8215)'],
  ['100::', 64, 'discard-only'],
  ['2001:db8::', 32, 'documentation'],
  ['fd00:ec2::254', 128, 'cloud metadata'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const RANGES = INTERNAL_RANGES.map(([network, prefix, label]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, isIPv4(network) ? 'ipv4' : 'ipv6');
  return { list, label };
});

/**
 * Why `address` (an IP address as connected to) is inside the machine or its networks
 * (`loopback`, `private (RFC 1918)`, `link-local`, `cloud metadata`, …), or undefined for a
 * public address. An IPv6 address that carries an IPv4 one (IPv4-mapped `::ffff:0:0/96`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) is judged by the IPv4 address it carries. Not an IP address
 * at all: `not an IP address`.
 */
export function internalAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const { list, label } of RANGES) {
    if (list.check(address, type)) return label;
  }
  if (family === 6) {
    const embedded = embeddedIPv4(address);
    if (embedded !== undefined) {
      const reason = internalAddressReason(embedded);
      return reason === undefined ? undefined : `${reason}, inside IPv6`;
    }
  }
  return undefined;
}

/** The IPv4 address a NAT64 or 6to4 address carries. */
function embeddedIPv4(address: string): string | undefined {
  const groups = expandIPv6(address);
  if (groups === undefined) return undefined;
  const v4 = (high: number, low: number): string =>
    [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  // 64:ff9b::/96: the last 32 bits.
  if (
    groups[0] === 0x64 &&
    groups[1] === 0xff9b &&
    groups.slice(2, 6).every((group) => group === 0)
  ) {
    return v4(groups[6] ?? 0, groups[7] ?? 0);
  }
  // 2002::/16: bits 16 to 47.
  if (groups[0] === 0x2002) return v4(groups[1] ?? 0, groups[2] ?? 0);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function expandIPv6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').map((group) => Number.parseInt(group, 16));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  const missing = 8 - first.length - last.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...first, ...new Array<number>(missing).fill(0), ...last];
}

interface NameRule {
  readonly kind: 'name';
  readonly name: string;
  readonly port: number | undefined;
}
interface AddressRule {
  readonly kind: 'address';
  readonly list: BlockList;
  readonly port: number | undefined;
}

/**
 * Decides, for each connection `http_fetch` opens, whether the address it connects to may be
 * reached: public addresses always, an internal one only when `allowHosts` lists it (by the
 * name the URL asked for, its address, or a CIDR range, each optionally with a port).
 */
export class AddressPolicy {
  readonly #rules: readonly (NameRule | AddressRule)[];

  /** `allow`: entries such as `localhost`, `db.internal:5984`, `127.0.0.1:8080`, `[::1]:9`, `10.0.0.0/8`. */
  constructor(allow: readonly string[] = []) {
    if (!Array.isArray(allow)) {
      throw new TypeError(
        `httpFetchTool: allowHosts must be an array of hosts or CIDR ranges, got ${JSON.stringify(allow)}`,
      );
    }
    this.#rules = allow.map((entry) => parseRule(entry));
  }

  /**
   * Why connecting to `address` for `hostname:port` is refused, or undefined when it may go
   * ahead. `hostname` is the URL's (an IP literal or a DNS name), `address` the resolved IP.
   */
  refusal(hostname: string, address: string, port: number): string | undefined {
    const reason = internalAddressReason(address);
    if (reason === undefined) return undefined;
    const name = hostname.toLowerCase();
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    for (const rule of this.#rules) {
      if (rule.port !== undefined && rule.port !== port) continue;
      if (
        rule.kind === 'name'
          ? rule.name === name
          : rule.list.check(address, type)
      ) {
        return undefined;
      }
    }
    const shown = name === address ? address : `${name} (${address})`;
    return `${shown} is a ${reason} address, which http_fetch does not reach unless its allowHosts option lists it`;
  }
}

function parseRule(entry: unknown): NameRule | AddressRule {
  const bad = (): TypeError =>
    new TypeError(
      `httpFetchTool: allowHosts entries are hosts, host:port, IP addresses or CIDR ranges such as 10.0.0.0/8, got ${JSON.stringify(entry)}`,
    );
  if (typeof entry !== 'string' || entry.trim() === '') throw bad();
  const text = entry.trim();
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (cidr?.[1] !== undefined && cidr[2] !== undefined) {
    const family = isIP(cidr[1]);
    const prefix = Number(cidr[2]);
    if (family === 0 || prefix > (family === 4 ? 32 : 128)) throw bad();
    const list = new BlockList();
    list.addSubnet(cidr[1], prefix, family === 4 ? 'ipv4' : 'ipv6');
    return { kind: 'address', list, port: undefined };
  }
  if (isIP(text) === 6) return addressRule(text, undefined);
  const parts =
    /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text) ??
    /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  const host = parts?.[1];
  if (host === undefined) throw bad();
  const port = parts?.[2] === undefined ? undefined : Number(parts[2]);
  if (port !== undefined && port > 65_535) throw bad();
  if (isIP(host) !== 0) return addressRule(host, port);
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/i.test(host)) throw bad();
  return { kind: 'name', name: host.toLowerCase(), port };
}

function addressRule(address: string, port: number | undefined): AddressRule {
  const list = new BlockList();
  list.addAddress(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  return { kind: 'address', list, port };
}
