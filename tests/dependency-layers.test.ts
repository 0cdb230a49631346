import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layerRank } from './layers.ts';

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const root = join(import.meta.dirname, '..');

function workspaceManifests(): { path: string; manifest: Manifest }[] {
  const dirs = ['packages', 'apps', 'internal'].flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name)),
  );
  if (existsSync(join(root, 'bench'))) dirs.push('bench');
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({
      path: join(dir, 'package.json'),
      manifest: JSON.parse(
        readFileSync(join(root, dir, 'package.json'), 'utf8'),
      ) as Manifest,
    }));
}

/** Every edge from one workspace package to another that does not point down a layer. */
export function wrongEdges(manifests: readonly Manifest[]): string[] {
  const problems: string[] = [];
  for (const manifest of manifests) {
    const from = layerRank[manifest.name];
    if (from === undefined) {
      problems.push(`${manifest.name} has no layer in tests/layers.ts`);
      continue;
    }
    const targets = new Set(
      [
        manifest.dependencies,
        manifest.devDependencies,
        manifest.peerDependencies,
        manifest.optionalDependencies,
      ].flatMap((deps) => Object.keys(deps ?? {})),
    );
    for (const target of targets) {
      if (!target.startsWith('@candor/')) continue;
      const to = layerRank[target];
      if (to === undefined || to >= from) {
        problems.push(`${manifest.name} → ${target} points up or sideways`);
      }
    }
  }
  return problems;
}

describe('dependency layers', () => {
  const manifests = workspaceManifests();

  it('finds every workspace package', () => {
    const names = manifests.map(({ manifest }) => manifest.name);
    expect(names).toEqual(
      expect.arrayContaining([
        '@candor/errors',
        '@candor/tools',
        '@candor/breaker',
        '@candor/registry',
        '@candor/core',
        '@candor/demo',
        '@candor/hostile-fixtures',
      ]),
    );
  });

  it('has no dependency pointing up the layers', () => {
    expect(wrongEdges(manifests.map(({ manifest }) => manifest))).toEqual([]);
  });

  it('catches an upward edge', () => {
    expect(
      wrongEdges([
        {
          name: '@candor/tools',
          dependencies: { '@candor/registry': 'workspace:^' },
        },
      ]),
    ).toEqual(['@candor/tools → @candor/registry points up or sideways']);
  });

  it('catches a sideways edge and an unknown package', () => {
    expect(
      wrongEdges([
        {
          name: '@candor/registry',
          devDependencies: { '@candor/builtins': 'workspace:^' },
        },
        { name: '@candor/mystery' },
      ]),
    ).toEqual([
      '@candor/registry → @candor/builtins points up or sideways',
      '@candor/mystery has no layer in tests/layers.ts',
    ]);
  });

  it('keeps @candor/errors free of runtime dependencies', () => {
    const errors = manifests.find(
      ({ manifest }) => manifest.name === '@candor/errors',
    );
    expect(Object.keys(errors?.manifest.dependencies ?? {})).toEqual([]);
  });
});
