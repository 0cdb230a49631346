import { describe, expect, it } from 'vitest';
import {
  checkPublishedPackage,
  findMissingTargets,
  findTestFiles,
  findWorkspaceRanges,
  importSpecifiers,
  manifestTargets,
  normaliseTarballPath,
} from '../install-test/manifest-check.ts';

// The shape every @candor package publishes (see packages/errors/package.json).
const manifest = {
  name: '@candor/tools',
  version: '0.1.0',
  exports: {
    '.': {
      '@candor/source': './src/index.ts',
      types: './dist/index.d.ts',
      default: './dist/index.js',
    },
    './package.json': './package.json',
  },
  main: './dist/index.js',
  types: './dist/index.d.ts',
  dependencies: { '@candor/errors': '^0.1.0', zod: '^4.6.7' },
};

const tarball = [
  'package/package.json',
  'package/README.md',
  'package/dist/index.js',
  'package/dist/index.d.ts',
  'package/src/index.ts',
];

describe('normaliseTarballPath', () => {
  it('strips the tarball folder and a leading ./', () => {
    expect(normaliseTarballPath('package/dist/index.js')).toBe('dist/index.js');
    expect(normaliseTarballPath('./src/index.ts')).toBe('src/index.ts');
  });
});

describe('findWorkspaceRanges', () => {
  it('finds workspace: and catalog: ranges in every dependency field', () => {
    expect(
      findWorkspaceRanges({
        dependencies: { '@candor/errors': 'workspace:^', zod: '^4.6.7' },
        devDependencies: { pino: 'catalog:' },
        peerDependencies: { opossum: 'catalog:default' },
        optionalDependencies: { '@candor/tools': 'workspace:*' },
      }),
    ).toEqual([
      'dependencies["@candor/errors"]: workspace:^',
      'devDependencies["pino"]: catalog:',
      'peerDependencies["opossum"]: catalog:default',
      'optionalDependencies["@candor/tools"]: workspace:*',
    ]);
  });

  it('passes ordinary ranges and a manifest without dependencies', () => {
    expect(findWorkspaceRanges(manifest)).toEqual([]);
    expect(findWorkspaceRanges({ name: 'x' })).toEqual([]);
  });
});

describe('manifestTargets', () => {
  it('lists every exports leaf, main, types and each bin', () => {
    expect(
      manifestTargets({
        ...manifest,
        bin: { 'candor-trace': './dist/cli.js' },
      }).map(({ field }) => field),
    ).toEqual([
      'exports["."]["@candor/source"]',
      'exports["."]["types"]',
      'exports["."]["default"]',
      'exports["./package.json"]',
      'main',
      'types',
      'bin["candor-trace"]',
    ]);
  });

  it('follows fallback arrays and a string bin, and skips null subpaths', () => {
    expect(
      manifestTargets({
        exports: { '.': ['./a.js', './b.js'], './internal': null },
        bin: './cli.js',
      }),
    ).toEqual([
      { field: 'exports["."][0]', target: './a.js' },
      { field: 'exports["."][1]', target: './b.js' },
      { field: 'bin', target: './cli.js' },
    ]);
  });
});

describe('findMissingTargets', () => {
  it('passes when every target is in the tarball', () => {
    expect(
      findMissingTargets(manifest, new Set(tarball.map(normaliseTarballPath))),
    ).toEqual([]);
  });

  it('names a source condition whose file was left out', () => {
    const files = new Set(
      tarball
        .filter((file) => !file.includes('src/'))
        .map(normaliseTarballPath),
    );
    expect(findMissingTargets(manifest, files)).toEqual([
      'exports["."]["@candor/source"] → ./src/index.ts',
    ]);
  });

  it('needs a subpath pattern to match at least one file', () => {
    const patterned = { exports: { './tables/*': './tables/*.json' } };
    expect(
      findMissingTargets(patterned, new Set(['tables/codex.json'])),
    ).toEqual([]);
    expect(
      findMissingTargets(patterned, new Set(['tables/README.md'])),
    ).toEqual(['exports["./tables/*"] → ./tables/*.json']);
  });
});

describe('findTestFiles', () => {
  it('finds tests, type tests, their build output and fixture folders', () => {
    expect(
      findTestFiles([
        'package/src/index.ts',
        'package/src/readme.test.ts',
        'package/src/define-tool.test-d.ts',
        'package/dist/outcome-of.test.js',
        'package/dist/outcome-of.test.d.ts',
        'package/src/__fixtures__/codex/exec.jsonl',
        'package/src/testing-helpers.ts',
        'package/dist/latest.js',
      ]),
    ).toEqual([
      'dist/outcome-of.test.d.ts',
      'dist/outcome-of.test.js',
      'src/__fixtures__/codex/exec.jsonl',
      'src/define-tool.test-d.ts',
      'src/readme.test.ts',
    ]);
  });
});

describe('checkPublishedPackage', () => {
  it('finds nothing wrong with a well-made package', () => {
    expect(checkPublishedPackage({ manifest, files: tarball })).toEqual([]);
  });

  it('reports each kind of problem on its own line', () => {
    expect(
      checkPublishedPackage({
        manifest: {
          ...manifest,
          dependencies: { '@candor/errors': 'workspace:^' },
        },
        files: [
          ...tarball.filter((file) => file !== 'package/dist/index.d.ts'),
          'package/src/tool.test.ts',
        ],
      }),
    ).toEqual([
      'workspace-only range: dependencies["@candor/errors"]: workspace:^',
      'points at a file missing from the tarball: exports["."]["types"] → ./dist/index.d.ts',
      'points at a file missing from the tarball: types → ./dist/index.d.ts',
      'ships a test file: src/tool.test.ts',
    ]);
  });
});

describe('importSpecifiers', () => {
  it('names the main entry and each code subpath', () => {
    const withTesting = {
      ...manifest,
      name: '@candor/core',
      exports: {
        ...manifest.exports,
        './testing': {
          '@candor/source': './src/testing.ts',
          types: './dist/testing.d.ts',
          default: './dist/testing.js',
        },
      },
    };
    expect(importSpecifiers(withTesting)).toEqual([
      '@candor/core',
      '@candor/core/testing',
    ]);
    expect(
      findMissingTargets(
        withTesting,
        new Set(tarball.map(normaliseTarballPath)),
      ),
    ).toEqual([
      'exports["./testing"]["@candor/source"] → ./src/testing.ts',
      'exports["./testing"]["types"] → ./dist/testing.d.ts',
      'exports["./testing"]["default"] → ./dist/testing.js',
    ]);
  });

  it('skips patterns and blocked subpaths, and reads sugar forms as the main entry', () => {
    expect(
      importSpecifiers({
        name: 'a',
        exports: { '.': './a.js', './x/*': './x/*.js', './internal': null },
      }),
    ).toEqual(['a']);
    expect(
      importSpecifiers({ name: 'a', exports: { default: './a.js' } }),
    ).toEqual(['a']);
    expect(importSpecifiers({ name: 'a', exports: './a.js' })).toEqual(['a']);
    expect(importSpecifiers({ name: 'a' })).toEqual(['a']);
  });
});
