import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// `pnpm typecheck` and `pnpm lint` check the whole repository as one TypeScript program
// (tsconfig.check.json). That is only the same check as each package's own program while every
// workspace tsconfig.json adds nothing to the shared base, and only complete while the one
// program holds every workspace source file. A package that needs an option of its own, or a new
// workspace folder, fails here rather than being checked with the wrong options or not at all.
const root = join(import.meta.dirname, '..');

/** The workspace folders pnpm-workspace.yaml names (`dir/*` globs and plain folders). */
function workspaceFolders(): string[] {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  // The list under `packages:`, up to the next top-level key.
  const list = /^packages:\n((?:[ \t]+.*\n|\s*\n)*)/m.exec(yaml)?.[1] ?? '';
  const globs = [...list.matchAll(/^\s+-\s+['"]?([^'"\s#]+)['"]?\s*$/gm)].map(
    (match) => match[1] ?? '',
  );
  return globs.flatMap((glob) =>
    glob.endsWith('/*')
      ? readdirSync(join(root, glob.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${glob.slice(0, -2)}/${entry.name}`)
      : [glob],
  );
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return /\.[cm]?ts$/.test(entry.name) ? [path] : [];
  });
}

describe('the one program of pnpm typecheck and pnpm lint', () => {
  const folders = workspaceFolders();

  it('finds the workspace folders', () => {
    expect(folders).toContain('packages/registry');
    expect(folders).toContain('bench');
  });

  it.each(folders)('%s: its tsconfig.json only extends the base', (folder) => {
    const config = JSON.parse(
      readFileSync(join(root, folder, 'tsconfig.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(config).toEqual({
      extends: relative(join(root, folder), join(root, 'tsconfig.base.json'))
        .split('\\')
        .join('/'),
    });
  });

  it('holds every source and test file of every workspace folder', () => {
    const parsed = ts.getParsedCommandLineOfConfigFile(
      join(root, 'tsconfig.check.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(
            ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
          );
        },
      },
    );
    const held = new Set(parsed?.fileNames);
    const missing = folders
      .flatMap((folder) => typeScriptFiles(join(root, folder, 'src')))
      .filter((file) => !held.has(file.split('\\').join('/')))
      .map((file) => relative(root, file));
    expect(missing).toEqual([]);
    expect(held.size).toBeGreaterThan(500);
  });
});
