import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A public `packages/*` workspace package. */
export interface WorkspacePackage {
  readonly name: string;
  readonly dir: string;
  /**
   * False while the package has no `src/index.ts`: it is being started, so the install test
   * neither publishes nor installs it yet.
   */
  readonly ready: boolean;
  /** The names of its `bin` entries. */
  readonly bins: readonly string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every non-private package under `<root>/packages`, sorted by name. */
export async function listPublicPackages(
  root: string,
): Promise<WorkspacePackage[]> {
  const found: WorkspacePackage[] = [];
  const entries = await readdir(join(root, 'packages'), {
    withFileTypes: true,
  });
  for (const entry of entries) {
    const dir = join(root, 'packages', entry.name);
    const path = join(dir, 'package.json');
    if (!entry.isDirectory() || !existsSync(path)) continue;
    const manifest: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (!isRecord(manifest) || manifest['private'] === true) continue;
    const name = manifest['name'];
    if (typeof name !== 'string') {
      throw new Error(`${path} has no name`);
    }
    const bin = manifest['bin'];
    found.push({
      name,
      dir,
      ready: existsSync(join(dir, 'src', 'index.ts')),
      bins: isRecord(bin) ? Object.keys(bin) : [],
    });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}
