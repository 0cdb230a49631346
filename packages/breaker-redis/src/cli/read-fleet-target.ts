import { type RedisBreakerStoreOptions } from '../redis-breaker-store-options.ts';
import { printable } from './format-fleet-status.ts';

/** Where `candor-fleet` finds the fleet: the store options that say so, and how to name it. */
export interface FleetTarget {
  /** The store's own options for it: `url`, `cluster` or `sentinel` (and a password). */
  readonly options: Pick<
    RedisBreakerStoreOptions,
    'url' | 'cluster' | 'sentinel' | 'password'
  >;
  /** For messages: never a credential. */
  readonly shown: string;
}

/** The options `candor-fleet` reads for its target, as `parseArgs` gives them. */
export interface FleetTargetArgs {
  readonly url?: string | undefined;
  readonly cluster?: string | undefined;
  readonly sentinel?: string | undefined;
  readonly name?: string | undefined;
}

/** A URL without its credentials, for messages. */
function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}

/** A redis:// or rediss:// URL, or the one-line reason it is not one. */
function redisUrl(option: string, raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${option} must be a redis:// or rediss:// URL, and this one does not parse`;
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    return `${option} must be a redis:// or rediss:// URL, got ${printable(url.protocol)}//…`;
  }
  return url;
}

/** A comma-separated list, without empty items. */
function list(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * Reads the target of `candor-fleet` (shaped like the store's own options): `--url` (else
 * `$REDIS_URL`, else the local default) for one node; `--cluster <url>[,<url>...]` for Redis
 * Cluster, its root nodes; `--sentinel <host:port>[,...] --name <primary>` for Sentinel, with
 * `$REDIS_PASSWORD` for the data nodes. Returns the target, or the one-line reason it is not one.
 */
export function readFleetTarget(
  args: FleetTargetArgs,
  env: Readonly<Record<string, string | undefined>>,
): FleetTarget | string {
  const { cluster, sentinel, name } = args;
  const given = [
    args.url === undefined ? [] : ['--url'],
    cluster === undefined ? [] : ['--cluster'],
    sentinel === undefined ? [] : ['--sentinel'],
  ].flat();
  if (given.length > 1)
    return `${given.join(' and ')} cannot be given together`;
  if (name !== undefined && sentinel === undefined)
    return '--name goes with --sentinel';
  if (cluster !== undefined) {
    const urls = list(cluster);
    if (urls.length === 0) return '--cluster needs at least one node URL';
    const parsed: URL[] = [];
    for (const raw of urls) {
      const url = redisUrl('--cluster', raw);
      if (typeof url === 'string') return url;
      parsed.push(url);
    }
    return {
      options: { cluster: { rootNodes: urls.map((url) => ({ url })) } },
      shown: `cluster ${parsed.map(shown).join(',')}`,
    };
  }
  if (sentinel !== undefined) {
    if (name === undefined || name === '') {
      return '--sentinel needs --name, the primary the sentinels monitor';
    }
    const nodes: { host: string; port: number }[] = [];
    for (const item of list(sentinel)) {
      const match = /^(.+):(\d{1,5})$/.exec(item);
      const port = Number(match?.[2]);
      if (match?.[1] === undefined || port < 1 || port > 65_535) {
        return `--sentinel takes host:port[,host:port...], got ${JSON.stringify(printable(item))}`;
      }
      // [::1]:26379 names an IPv6 host.
      nodes.push({ host: match[1].replace(/^\[(.*)\]$/, '$1'), port });
    }
    if (nodes.length === 0) return '--sentinel needs at least one host:port';
    const password = env['REDIS_PASSWORD'];
    return {
      options: {
        sentinel: { name, sentinelRootNodes: nodes },
        ...(password === undefined || password === '' ? {} : { password }),
      },
      shown: `sentinel ${JSON.stringify(printable(name))} via ${nodes.map((node) => `${node.host}:${String(node.port)}`).join(',')}`,
    };
  }
  const raw = args.url ?? env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
  const url = redisUrl('--url', raw);
  if (typeof url === 'string') return url;
  return { options: { url: raw }, shown: shown(url) };
}
