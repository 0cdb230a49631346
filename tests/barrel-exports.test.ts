import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Each public entry's runtime names, and its type-only names as the compiler sees them,
// snapshotted: an export added or removed by accident fails here. A deliberate change updates the snapshot (`pnpm vitest run tests/barrel-exports -u`),
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

/**
 * Every name each barrel exports, types included, as the TypeScript compiler binds them: one
 * program over all barrels with the repo's compiler options (so `@candor/*` resolves to `src/`).
 */
function compilerExports(files: readonly string[]): Map<string, string[]> {
  const { config } = ts.readConfigFile(
    join(root, 'tsconfig.base.json'),
    (path) => ts.sys.readFile(path),
  ) as { config: unknown };
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram({
    rootNames: files,
    options: { ...options, noEmit: true },
  });
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    const symbol =
      source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (symbol === undefined)
      throw new Error(`the compiler did not bind ${file}`);
    names.set(
      file,
      checker
        .getExportsOfModule(symbol)
        .map((exported) => exported.name)
        .sort(),
    );
  }
  return names;
}

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

  // Type-only exports leave no runtime trace, so the compiler lists them: a type added to or
  // dropped from a barrel by accident fails here the same way.
  describe('type-only names', () => {
    let all: Map<string, string[]> | undefined;
    it.each(barrels)(
      '$entry exports exactly its known types',
      async ({ file }) => {
        all ??= compilerExports(barrels.map((barrel) => barrel.file));
        const runtime = new Set(
          Object.keys((await import(file)) as Record<string, unknown>),
        );
        const types = (all.get(file) ?? []).filter(
          (name) => !runtime.has(name),
        );
        expect(types).toMatchSnapshot();
      },
      60_000,
    );
  });
});
