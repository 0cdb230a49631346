import { type Dirent } from 'node:fs';
import { ToolError } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import { errorResponse } from './error-response.ts';
import { positiveOption } from './positive-option.ts';
import { type WorkspaceDir } from './workspace-dir.ts';
import { WorkspaceGuard } from './workspace-guard.ts';
import { systemErrorCode } from './system-error-code.ts';
import { builtinTraits } from './builtin-annotations.ts';

/** Options of {@link listDirTool}. */
export interface ListDirToolOptions {
  /** Every path resolves inside this directory. */
  readonly root: string;
  /** The most entries one call returns; more is PARTIAL. 1000. */
  readonly maxEntries?: number;
}

/** One entry of a `list_dir` result. Symbolic links are reported as links, not followed. */
export interface DirEntry {
  readonly name: string;
  readonly type: 'file' | 'directory' | 'symlink' | 'other';
  /** Bytes, for files. */
  readonly size?: number;
}

function typeOf(entry: Dirent): DirEntry['type'] {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  return 'other';
}

function byName(a: Dirent, b: Dirent): number {
  if (a.name < b.name) return -1;
  return a.name > b.name ? 1 : 0;
}

/**
 * `list_dir`: lists the entries of a directory inside the workspace root, sorted by name.
 *
 * Outcomes: SUCCESS with `data.entries` and `data.total`; PARTIAL (`reason: 'entry_cap'`) with the
 * first entries and the total when there are more than the cap; NOT_FOUND; INVALID_PARAM for a
 * file; PERMISSION_DENIED; ACCESS_DENIED for paths outside the root.
 *
 * @example
 * ```ts
 * registry.register(listDirTool({ root: process.cwd(), maxEntries: 200 }));
 * ```
 */
export function listDirTool(options: ListDirToolOptions) {
  const guard = new WorkspaceGuard(options.root);
  const cap = positiveOption(
    'listDirTool: maxEntries',
    options.maxEntries,
    1000,
  );
  return defineTool({
    name: 'list_dir',
    ...builtinTraits('list_dir'),
    description: `Lists the entries of a directory inside the workspace, sorted by name, at most ${cap}; a longer listing comes back partial with the total.`,
    input: z.object({
      path: z
        .string()
        .min(1)
        .default('.')
        .describe('Directory path, relative to the workspace root'),
    }),
    run: async ({ path }) => {
      try {
        const target = await guard.resolve(path);
        const { dir: parent, name } = await guard.openParent(target);
        let dir: WorkspaceDir;
        try {
          dir =
            name === undefined
              ? parent
              : await parent.openDir(name).catch((error: unknown) => {
                  if (systemErrorCode(error) !== 'ENOTDIR') throw error;
                  throw new ToolError({
                    code: 'INVALID_PARAM',
                    message: `${target.relative} is not a directory; use read_file to read a file`,
                  });
                });
        } finally {
          if (name !== undefined) await parent.close();
        }
        let entries: DirEntry[];
        let all: Dirent[];
        try {
          // Listed through the opened directory, so a swap of its path cannot redirect it.
          all = (await dir.readdir()).sort(byName);
          entries = await Promise.all(
            all.slice(0, cap).map(async (entry): Promise<DirEntry> => {
              const type = typeOf(entry);
              if (type !== 'file') return { name: entry.name, type };
              const size = await dir.lstat(entry.name).then(
                (stats) => stats.size,
                // Deleted between readdir and lstat: still listed, without a size.
                () => undefined,
              );
              return size === undefined
                ? { name: entry.name, type }
                : { name: entry.name, type, size };
            }),
          );
        } finally {
          await dir.close();
        }
        const lines = entries.map((entry) =>
          entry.type === 'directory' ? `${entry.name}/` : entry.name,
        );
        const data = { path: target.relative, entries, total: all.length };
        if (all.length <= cap) {
          return ToolResponse.success(
            lines.length === 0 ? '(empty directory)' : lines.join('\n'),
            { data },
          );
        }
        return ToolResponse.partial(
          `${lines.join('\n')}\n[list_dir: showed ${cap} of ${all.length} entries]`,
          { reason: 'entry_cap', data: { ...data, truncated: true } },
        );
      } catch (error: unknown) {
        return errorResponse(error, path);
      }
    },
  });
}
