import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  mkdir,
  mkdtemp,
  readdir,
  realpath,
  rm,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import { findExecutable } from './find-executable.ts';
import { listDirTool } from './list-dir-tool.ts';
import { readFileTool } from './read-file-tool.ts';
import { searchTool } from './search-tool.ts';
import { writeFileTool } from './write-file-tool.ts';

const SECRET = 'OUTSIDE-SECRET';
const RACE_MS = 2000;
const swapLoop = fileURLToPath(
  new URL('__fixtures__/swap-loop.ts', import.meta.url),
);
const rgAvailable =
  'path' in
  (await findExecutable('rg', process.env['PATH'] ?? '', process.cwd()));

let root: string;
let outside: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
  outside = await realpath(await mkdtemp(join(tmpdir(), 'candor-outside-')));
  await mkdir(join(root, 'd/sub'), { recursive: true });
  await writeFile(join(root, 'd/f.txt'), 'inside\n');
  await writeFile(join(root, 'd/sub/g.txt'), 'inside too\n');
  await mkdir(join(outside, 'sub'));
  await writeFile(join(outside, 'f.txt'), `${SECRET}\n`);
  await writeFile(join(outside, 'sub/g.txt'), `${SECRET}\n`);
  await writeFile(join(outside, 'secret-entry'), `${SECRET}\n`);
});

afterEach(async () => {
  await cleanup();
  await rm(outside, { recursive: true, force: true });
});

describe('the workspace guard under a symlink-swapping race', () => {
  it(`read_file, write_file, list_dir and search (js${rgAvailable ? ' and rg' : '; rg skipped: not on PATH'}) never reach outside during ${RACE_MS} ms of swaps`, async () => {
    const swapper = spawn(
      process.execPath,
      ['--import', 'tsx', swapLoop, join(root, 'd'), outside],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await once(swapper.stdout, 'data');
      const tools = {
        read: readFileTool({ root }),
        write: writeFileTool({ root }),
        list: listDirTool({ root }),
        js: searchTool({ root, engine: 'js' }),
        rg: searchTool({ root, engine: 'rg' }),
      };
      const leaks: string[] = [];
      const successes = { read: 0, write: 0, list: 0, search: 0 };
      const deadline = Date.now() + RACE_MS;
      let rounds = 0;
      while (Date.now() < deadline) {
        rounds += 1;
        const read = await callTool(tools.read, { path: 'd/f.txt' });
        if (read.text.includes(SECRET)) leaks.push(`read_file: ${read.text}`);
        if (codeOf(read) === 'success') successes.read += 1;
        const write = await callTool(tools.write, {
          path: `d/new-${rounds % 3}.txt`,
          content: 'written\n',
        });
        if (codeOf(write) === 'success') successes.write += 1;
        const list = await callTool(tools.list, { path: 'd' });
        if (list.text.includes('secret-entry'))
          leaks.push(`list_dir: ${list.text}`);
        if (codeOf(list) === 'success') successes.list += 1;
        for (const engine of rgAvailable
          ? (['js', 'rg'] as const)
          : (['js'] as const)) {
          for (const path of ['d', 'd/sub', '.']) {
            const search = await callTool(tools[engine], {
              pattern: 'SECRET|inside',
              path,
            });
            if (JSON.stringify(search).includes(SECRET))
              leaks.push(`search ${engine} ${path}: ${search.text}`);
            if (codeOf(search) === 'success') successes.search += 1;
          }
        }
      }
      expect(leaks).toEqual([]);
      // Nothing was written outside: the outside directory holds what it held.
      expect((await readdir(outside)).sort()).toEqual([
        'f.txt',
        'secret-entry',
        'sub',
      ]);
      // The tools kept working between the swaps, so the race was really run against them.
      expect(successes.read).toBeGreaterThan(0);
      expect(successes.write).toBeGreaterThan(0);
      expect(successes.list).toBeGreaterThan(0);
      expect(successes.search).toBeGreaterThan(0);
    } finally {
      swapper.kill('SIGKILL');
      await once(swapper, 'close');
    }
  }, 30_000);
});
