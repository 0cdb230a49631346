import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { copyWorkspace } from '../install-test/copy-workspace.ts';
import { CommandFailed, ProcessGroup } from '../install-test/process-group.ts';

const node = process.execPath;
const options = { cwd: tmpdir(), env: process.env };

describe('ProcessGroup', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves with the exit code and everything the child printed', async () => {
    const result = await new ProcessGroup().run(
      node,
      [
        '-e',
        'process.stdin.pipe(process.stdout); process.stderr.write("warn"); process.exitCode = 3',
      ],
      { ...options, input: 'hello' },
    );
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: 'hello',
      stderr: 'warn',
      timedOut: false,
    });
  });

  it('runOk throws CommandFailed with the command and its output', async () => {
    const failing = new ProcessGroup().runOk(
      node,
      ['-e', 'console.error("no such tool"); process.exit(2)'],
      options,
    );
    await expect(failing).rejects.toBeInstanceOf(CommandFailed);
    await expect(failing).rejects.toThrow(/exited with 2\nno such tool/);
  });

  it('rejects a command that cannot start, with its name', async () => {
    await expect(
      new ProcessGroup().run('candor-no-such-command', [], options),
    ).rejects.toThrow('cannot start `candor-no-such-command`');
  });

  it('kills a child that outlives its time limit and says so', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const group = new ProcessGroup();
    const running = group.run(node, ['-e', 'setInterval(() => {}, 1000)'], {
      ...options,
      timeoutMs: 60_000,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    const result = await running;
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(new CommandFailed(result).message).toMatch(/timed out$/);
  });

  it('stop() kills what runs and refuses to start more', async () => {
    const group = new ProcessGroup();
    const running = group.run(
      node,
      ['-e', 'console.log("up"); setInterval(() => {}, 1000)'],
      options,
    );
    group.stop();
    await expect(running).resolves.toMatchObject({ signal: 'SIGKILL' });
    await expect(group.run(node, ['--version'], options)).rejects.toThrow(
      'not starting',
    );
  });
});

describe('copyWorkspace', () => {
  let from: string;
  let to: string;

  beforeEach(async () => {
    from = await mkdtemp(join(tmpdir(), 'candor-copy-from-'));
    to = await mkdtemp(join(tmpdir(), 'candor-copy-to-'));
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: from, stdio: 'ignore' });
    git('init', '--quiet');
    await writeFile(join(from, '.gitignore'), 'node_modules\ndist\n');
    await mkdir(join(from, 'src'));
    await writeFile(join(from, 'src', 'tracked.ts'), 'export {};\n');
    await writeFile(join(from, 'src', 'deleted.ts'), 'gone\n');
    git('add', '.');
    await rm(join(from, 'src', 'deleted.ts'));
    await writeFile(join(from, 'src', 'untracked.ts'), 'new work\n');
    await mkdir(join(from, 'node_modules', 'zod'), { recursive: true });
    await writeFile(join(from, 'node_modules', 'zod', 'index.js'), '');
    await mkdir(join(from, 'dist'));
    await writeFile(join(from, 'dist', 'index.js'), '');
  });

  afterEach(async () => {
    await rm(from, { recursive: true, force: true });
    await rm(to, { recursive: true, force: true });
  });

  it('copies tracked and untracked files, never ignored ones', async () => {
    const copied = await copyWorkspace(from, to, new ProcessGroup());
    expect(copied).toBe(3);
    expect(await readFile(join(to, 'src', 'untracked.ts'), 'utf8')).toBe(
      'new work\n',
    );
    expect(existsSync(join(to, 'src', 'tracked.ts'))).toBe(true);
    expect(existsSync(join(to, '.gitignore'))).toBe(true);
    expect(existsSync(join(to, 'src', 'deleted.ts'))).toBe(false);
    expect(existsSync(join(to, 'node_modules'))).toBe(false);
    expect(existsSync(join(to, 'dist'))).toBe(false);
  });
});
