// Imports every entry point of every installed @candor/* package, by its exports map, and
// prints one line per entry, then a count. A failed import exits 1 with its error.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const scope = join(process.cwd(), 'node_modules', '@candor');
let count = 0;
for (const dir of (await readdir(scope)).sort()) {
  const manifest = JSON.parse(
    await readFile(join(scope, dir, 'package.json'), 'utf8'),
  );
  const exports = manifest.exports ?? { '.': manifest.main };
  const subpaths =
    typeof exports === 'string' || !Object.keys(exports)[0]?.startsWith('.')
      ? ['.']
      : Object.keys(exports);
  for (const subpath of subpaths) {
    if (subpath.includes('*') || subpath.endsWith('.json')) continue;
    const specifier =
      subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`;
    const module = await import(specifier);
    console.log(`${specifier}: ${Object.keys(module).length} exports`);
    count += 1;
  }
}
console.log(`imported ${count} entry points`);
