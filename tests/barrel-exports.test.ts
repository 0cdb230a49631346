import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Each public entry's runtime names, snapshotted: an export added or removed by accident fails
// here. A deliberate change updates the snapshot (`pnpm vitest run tests/barrel-exports -u`),
// so it shows up in review next to its changeset. Every entry of a package's `exports` map
// counts: the main barrel (`@candor/core`) and each subpath (`@candor/core/testing`).
const root = join(import.meta.dirname, '..');

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly exports?: Record<string, unknown>;
}

/** The source file behind each subpath of `exports` that has a `@candor/source` condition. */
function entries(
  dir: string,
  manifest: Manifest,
): { entry: string; file: string }[] {
  return Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
    const source =
      typeof target === 'object' && target !== null
        ? (target as Record<string, unknown>)['@candor/source']
        : undefined;
    if (typeof source !== 'string') return [];
    const entry =
      subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`;
    return [{ entry, file: join(root, 'packages', dir, source) }];
  });
}

const barrels = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) => {
    const manifest = JSON.parse(
      readFileSync(join(root, 'packages', entry.name, 'package.json'), 'utf8'),
    ) as Manifest;
    return manifest.private === true ? [] : entries(entry.name, manifest);
  });

describe('the public exports of each package', () => {
  it('finds the main entry and the subpaths', () => {
    const names = barrels.map(({ entry }) => entry);
    expect(names).toContain('@candor/core');
    expect(names).toContain('@candor/core/testing');
  });

  it.each(barrels)(
    '$entry exports exactly its known names',
    async ({ file }) => {
      const barrel = (await import(file)) as Record<string, unknown>;
      expect(Object.keys(barrel).sort()).toMatchSnapshot();
    },
  );
});
