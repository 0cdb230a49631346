import { describe, expect, it } from 'vitest';
import { CheckList, RunAborted } from '../install-test/check-list.ts';
import {
  LOCAL_SCOPE,
  verdaccioConfig,
} from '../install-test/verdaccio-config.ts';

function list(): { checks: CheckList; lines: string[] } {
  const lines: string[] = [];
  return { checks: new CheckList((line) => lines.push(line)), lines };
}

describe('CheckList', () => {
  it('ends with the N passed, M failed line CI reads', () => {
    const { checks } = list();
    checks.expect('a', []);
    checks.expect('b', ['wrong']);
    checks.expect('c', []);
    expect(checks.summary()).toBe('install-test: 2 passed, 1 failed');
    expect(checks.failures).toBe(1);
  });

  it('adds skipped checks to the line only when there are some', () => {
    const { checks } = list();
    checks.expect('a', []);
    checks.skip('b', 'not built yet');
    expect(checks.summary()).toBe(
      'install-test: 1 passed, 0 failed, 1 skipped',
    );
  });

  it('prints each problem of a failed check under it', () => {
    const { checks, lines } = list();
    checks.expect('publish', ['first\nsecond', 'third']);
    expect(lines).toEqual([
      '  ✗ publish\n      first\n      second\n      third',
    ]);
  });

  it('records a throwing check as a failure with the error message', async () => {
    const { checks } = list();
    const passed = await checks.check('tsc', () =>
      Promise.reject(new Error('TS2307: Cannot find module')),
    );
    expect(passed).toBe(false);
    expect(checks.records[0]).toEqual({
      name: 'tsc',
      outcome: 'failed',
      detail: 'TS2307: Cannot find module',
    });
  });

  it('returns what a required step made, and aborts the run when it throws', async () => {
    const { checks } = list();
    await expect(
      checks.require('copy', () => Promise.resolve(42)),
    ).resolves.toBe(42);
    await expect(
      checks.require('build', () => Promise.reject(new Error('tsc failed'))),
    ).rejects.toBeInstanceOf(RunAborted);
    expect(checks.records.map(({ outcome }) => outcome)).toEqual([
      'passed',
      'failed',
    ]);
  });
});

describe('verdaccioConfig', () => {
  const config = verdaccioConfig({
    storage: '/tmp/x/storage',
    logFile: '/tmp/x/verdaccio.log',
    uplink: 'https://registry.npmjs.org/',
  });
  const packages = config['packages'] as Record<string, Record<string, string>>;

  it('serves @candor/* from local storage only, open to anonymous publishing', () => {
    expect(packages[LOCAL_SCOPE]).toEqual({
      access: '$all',
      publish: '$anonymous $authenticated',
      unpublish: '$anonymous $authenticated',
    });
    expect(packages[LOCAL_SCOPE]).not.toHaveProperty('proxy');
  });

  it('proxies everything else read-only to the uplink', () => {
    expect(packages['**']).toEqual({
      access: '$all',
      publish: '$authenticated',
      proxy: 'npmjs',
    });
    expect(config['uplinks']).toMatchObject({
      npmjs: { url: 'https://registry.npmjs.org/' },
    });
  });

  it('lists @candor/* before the catch-all, since Verdaccio takes the first match', () => {
    expect(Object.keys(packages)).toEqual([LOCAL_SCOPE, '**']);
  });

  it('keeps storage and log in the given temporary places', () => {
    expect(config['storage']).toBe('/tmp/x/storage');
    expect(config['log']).toMatchObject({
      type: 'file',
      path: '/tmp/x/verdaccio.log',
    });
  });
});
