import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Each package's public runtime names, snapshotted: an export added or removed by accident fails
// here. A deliberate change updates the snapshot (`pnpm vitest run tests/barrel-exports -u`),
// so it shows up in review next to its changeset.
const root = join(import.meta.dirname, '..');
const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => {
    const manifest = JSON.parse(
      readFileSync(join(root, 'packages', entry.name, 'package.json'), 'utf8'),
    ) as { name: string; private?: boolean };
    return { dir: entry.name, name: manifest.name, private: manifest.private };
  })
  .filter((pkg) => pkg.private !== true);

describe('the public exports of each package', () => {
  it.each(packages)(
    '$name exports exactly its known names',
    async ({ dir }) => {
      const barrel = (await import(
        join(root, 'packages', dir, 'src', 'index.ts')
      )) as Record<string, unknown>;
      expect(Object.keys(barrel).sort()).toMatchSnapshot();
    },
  );
});
