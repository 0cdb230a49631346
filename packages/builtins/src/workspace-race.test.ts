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
import { type ToolResponse } from '@candor/tools';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import { findExecutable } from './find-executable.ts';
import { listDirTool } from './list-dir-tool.ts';
import { readFileTool } from './read-file-tool.ts';
import { searchTool } from './search-tool.ts';
import { writeFileTool } from './write-file-tool.ts';

const SECRET = 'OUTSIDE-SECRET';
const RACE_MS = 2000;
/** How long the loops may go on past RACE_MS to see each tool succeed once. */
const HARD_STOP_MS = 40_000;
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
      let refusals = 0;
      const started = Date.now();
      const deadline = started + RACE_MS;
      const hardStop = started + HARD_STOP_MS;
      /**
       * Calls one tool over and over for at least RACE_MS, and on until it has succeeded once
       * and some call anywhere was refused (so the swaps really met the tools): on a loaded
       * machine a round can take long enough that 2 s alone proves nothing. The loops run side
       * by side, so a slow ripgrep start does not starve the others.
       */
      const hammer = async (
        kind: keyof typeof successes,
        call: (round: number) => Promise<ToolResponse>,
        leaked: (response: ToolResponse) => boolean,
      ) => {
        for (
          let round = 0;
          Date.now() < deadline ||
          ((successes[kind] === 0 || refusals === 0) && Date.now() < hardStop);
          round += 1
        ) {
          const response = await call(round);
          if (leaked(response)) {
            leaks.push(`${kind}: ${JSON.stringify(response)}`);
          }
          if (codeOf(response) === 'success') successes[kind] += 1;
          else refusals += 1;
        }
      };
      const engines = rgAvailable ? (['js', 'rg'] as const) : (['js'] as const);
      await Promise.all([
        hammer(
          'read',
          () => callTool(tools.read, { path: 'd/f.txt' }),
          (response) => response.text.includes(SECRET),
        ),
        hammer(
          'write',
          (round) =>
            callTool(tools.write, {
              path: `d/new-${round % 3}.txt`,
              content: 'written\n',
            }),
          () => false,
        ),
        hammer(
          'list',
          () => callTool(tools.list, { path: 'd' }),
          (response) => response.text.includes('secret-entry'),
        ),
        ...engines.map((engine) =>
          hammer(
            'search',
            (round) =>
              callTool(tools[engine], {
                pattern: 'SECRET|inside',
                path: ['d', 'd/sub', '.'][round % 3] ?? '.',
              }),
            (response) => JSON.stringify(response).includes(SECRET),
          ),
        ),
      ]);
      // At least RACE_MS of swapping ran against the tools.
      expect(Date.now() - started).toBeGreaterThanOrEqual(RACE_MS);
      expect(refusals).toBeGreaterThan(0);
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
  }, 60_000);
});
