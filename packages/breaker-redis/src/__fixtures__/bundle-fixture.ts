import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** A fixture bundled for plain `node`, and how to remove it. */
export interface BundledFixture {
  readonly file: string;
  readonly remove: () => void;
}

/**
 * Bundles `__fixtures__/<name>.ts` (or another path from there: `../cli/candor-fleet`) into one
 * plain-node ES module. Processes loading TypeScript through a loader each start in seconds on a
 * busy machine; the bundle starts in milliseconds.
 */
export async function bundleFixture(name: string): Promise<BundledFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'candor-fleet-'));
  // `name` may be a path from here (`../cli/candor-fleet`): the bundle stays in `dir`.
  const file = join(dir, `${basename(name)}.mjs`);
  await build({
    entryPoints: [fileURLToPath(new URL(`${name}.ts`, import.meta.url))],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@candor/source'],
    // CommonJS dependencies (opossum) need require() inside an ES module bundle.
    banner: {
      js: "import { createRequire as fleetRequire } from 'node:module'; const require = fleetRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
  return {
    file,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The package's directory, the cwd of forked fixtures. */
export const packageDir = fileURLToPath(new URL('../..', import.meta.url));
