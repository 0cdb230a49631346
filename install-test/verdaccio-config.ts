/** Where the local registry keeps its files, and what it proxies everything else to. */
export interface VerdaccioConfigOptions {
  /** An empty temporary folder; published tarballs and cached proxies land here. */
  readonly storage: string;
  /** Verdaccio's log, kept out of the test's own output and shown when a step fails. */
  readonly logFile: string;
  /** The registry third-party packages (zod, pino, typescript, node) come from. */
  readonly uplink: string;
}

/** The scope the install test publishes; it never reaches the uplink, in either direction. */
export const LOCAL_SCOPE = '@candor/*';

/**
 * A Verdaccio configuration as plain data (JSON is valid YAML, so it is written with
 * `JSON.stringify` and never needs YAML escaping). `@candor/*` is served only from local
 * storage and anyone may publish it; every other package is read-only and proxied, so a test
 * can neither publish it nor shadow a real release.
 */
export function verdaccioConfig(
  options: VerdaccioConfigOptions,
): Record<string, unknown> {
  return {
    storage: options.storage,
    auth: {
      // Registration off: the test publishes anonymously and never needs an account.
      htpasswd: { file: `${options.storage}/htpasswd`, max_users: -1 },
    },
    uplinks: { npmjs: { url: options.uplink, timeout: '60s', maxage: '30m' } },
    packages: {
      [LOCAL_SCOPE]: {
        access: '$all',
        publish: '$anonymous $authenticated',
        unpublish: '$anonymous $authenticated',
      },
      '**': { access: '$all', publish: '$authenticated', proxy: 'npmjs' },
    },
    web: { enable: false },
    log: { type: 'file', path: options.logFile, format: 'json', level: 'warn' },
  };
}
