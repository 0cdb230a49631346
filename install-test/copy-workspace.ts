import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  readlink,
  symlink,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type ProcessGroup } from './process-group.ts';

/**
 * Copies what a fresh clone would hold plus the work not yet committed: git's tracked files and
 * its untracked, not-ignored ones. `node_modules`, `dist` and caches stay behind, so the copy
 * installs and builds from nothing. Returns how many files were copied.
 */
export async function copyWorkspace(
  from: string,
  to: string,
  processes: ProcessGroup,
): Promise<number> {
  const listing = await processes.runOk(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '-z'],
    { cwd: from, env: process.env },
  );
  const paths = [
    ...new Set(listing.stdout.split('\0').filter((path) => path !== '')),
  ];
  let copied = 0;
  for (const path of paths) {
    const source = join(from, path);
    const target = join(to, path);
    // Tracked but deleted in the work tree: a fresh clone would have it, the work tree wins.
    const stats = await lstat(source).catch(() => undefined);
    if (stats === undefined || stats.isDirectory()) continue;
    await mkdir(dirname(target), { recursive: true });
    if (stats.isSymbolicLink()) {
      await symlink(await readlink(source), target);
    } else {
      await copyFile(source, target);
      await chmod(target, stats.mode);
    }
    copied += 1;
  }
  return copied;
}
