import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import { isGone } from './__fixtures__/process-state.ts';
import { probeBubblewrap } from './bubblewrap.ts';
import { shellTool } from './shell-tool.ts';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
  await mkdir(join(root, 'sub'));
  await writeFile(join(root, 'not-executable.sh'), 'echo hi\n');
  await symlink('/tmp', join(root, 'escape'));
});

afterEach(async () => {
  await cleanup();
});

interface ShellData {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

describe('shell outcomes', () => {
  it.each([
    [
      'prints "Error:" and exits 0',
      { command: ['sh', '-c', 'echo "Error: fixture"'] },
      'success',
    ],
    [
      'prints nothing and exits 3',
      { command: ['sh', '-c', 'exit 3'] },
      'EXECUTION_ERROR',
    ],
    [
      'prints only to stderr and exits 0',
      { command: ['sh', '-c', 'echo failed >&2'] },
      'success',
    ],
    ['a missing program', { command: ['no-such-program-xyz'] }, 'NOT_FOUND'],
    [
      'a program that is not executable',
      { command: ['./not-executable.sh'] },
      'PERMISSION_DENIED',
    ],
    [
      'a string without allowShellString',
      { command: 'echo hi' },
      'INVALID_PARAM',
    ],
    ['an empty argv', { command: [] }, 'INVALID_PARAM'],
    [
      'a cwd outside the root',
      { command: ['pwd'], cwd: '..' },
      'ACCESS_DENIED',
    ],
    [
      'a cwd through an escaping symlink',
      { command: ['pwd'], cwd: 'escape' },
      'ACCESS_DENIED',
    ],
    ['a missing cwd', { command: ['pwd'], cwd: 'missing' }, 'NOT_FOUND'],
    [
      'a file as cwd',
      { command: ['pwd'], cwd: 'not-executable.sh' },
      'INVALID_PARAM',
    ],
  ])('%s → %s', async (_name, args, expected) => {
    const response = await callTool(shellTool({ root }), args);
    expect(codeOf(response)).toBe(expected);
  });

  it('a non-zero exit carries exit code, signal, stdout and stderr', async () => {
    const response = await callTool(shellTool({ root }), {
      command: ['sh', '-c', 'echo out; echo err >&2; exit 3'],
    });
    expect(response.status).toBe('error');
    if (response.status !== 'error') return;
    expect(response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      message: 'The command exited with code 3',
      retryable: false,
    });
    expect(response.data).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
    });
  });

  it('an exit of 0 is success whatever the output says', async () => {
    const response = await callTool(shellTool({ root }), {
      command: ['sh', '-c', 'echo "Error: fixture"; echo "FATAL" >&2'],
    });
    expect(response.status).toBe('success');
    expect(response.data).toMatchObject({
      exitCode: 0,
      stdout: 'Error: fixture\n',
      stderr: 'FATAL\n',
    });
  });

  it('passes argv without shell interpretation', async () => {
    const response = await callTool(shellTool({ root }), {
      command: ['echo', '$HOME', '*', '; rm -rf /', '`id`'],
    });
    expect((response.data as ShellData).stdout).toBe(
      '$HOME * ; rm -rf / `id`\n',
    );
  });

  it('runs a string through /bin/sh -c only when allowed', async () => {
    const tool = shellTool({ root, allowShellString: true });
    const response = await callTool(tool, { command: 'echo a | tr a b' });
    expect(response.status).toBe('success');
    expect((response.data as ShellData).stdout).toBe('b\n');
    const missing = await callTool(tool, { command: 'no-such-program-xyz' });
    expect(codeOf(missing)).toBe('NOT_FOUND');
  });

  it('runs in cwd inside the root', async () => {
    const response = await callTool(shellTool({ root }), {
      command: ['pwd'],
      cwd: 'sub',
    });
    expect((response.data as ShellData).stdout).toBe(`${join(root, 'sub')}\n`);
  });

  it('passes only allowlisted variables, plus the ones given', async () => {
    const tool = shellTool({
      root,
      baseEnv: {
        PATH: process.env['PATH'],
        SECRET_TOKEN: 'hunter2',
        LANG: 'C',
      },
      env: { FROM_OPTIONS: 'yes' },
    });
    const response = await callTool(tool, {
      command: ['env'],
      env: { FROM_CALL: 'also' },
    });
    const lines = (response.data as ShellData).stdout.trim().split('\n').sort();
    // Plus the run's marker, which lets the tool find processes that left the group.
    expect(lines.filter((line) => !line.startsWith('CANDOR_RUN_ID='))).toEqual([
      'FROM_CALL=also',
      'FROM_OPTIONS=yes',
      'LANG=C',
      `PATH=${String(process.env['PATH'])}`,
    ]);
  });

  it('closes stdin', async () => {
    const response = await callTool(shellTool({ root }), { command: ['cat'] });
    expect(response.status).toBe('success');
    expect((response.data as ShellData).stdout).toBe('');
  });

  it('is PARTIAL over the output cap when the exit code was 0, keeping head and tail', async () => {
    const response = await callTool(shellTool({ root, maxOutputBytes: 20 }), {
      command: ['sh', '-c', 'echo HEAD; seq 1 1000; echo TAIL'],
    });
    expect(response.status).toBe('partial');
    if (response.status !== 'partial') return;
    expect(response.reason).toBe('output_cap');
    const data = response.data as ShellData & { stdoutBytes: number };
    expect(data.truncated).toBe(true);
    expect(data.stdout.startsWith('HEAD\n')).toBe(true);
    expect(data.stdout.endsWith('TAIL\n')).toBe(true);
    expect(data.stdout).toContain('bytes omitted');
    expect(data.stdoutBytes).toBeGreaterThan(3000);
  });

  it('is an ERROR, not PARTIAL, over the cap with a non-zero exit', async () => {
    const response = await callTool(shellTool({ root, maxOutputBytes: 20 }), {
      command: ['sh', '-c', 'seq 1 1000; exit 1'],
    });
    expect(codeOf(response)).toBe('EXECUTION_ERROR');
    expect((response.data as ShellData).truncated).toBe(true);
  });

  it('reports a command killed by a signal', async () => {
    const response = await callTool(shellTool({ root }), {
      command: ['sh', '-c', 'kill -TERM $$'],
    });
    expect(codeOf(response)).toBe('EXECUTION_ERROR');
    expect(response.data).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
  });

  it('rejects bad options at construction', () => {
    expect(() => shellTool({ root, timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => shellTool({ root, envAllowlist: ['BAD-NAME'] })).toThrow(
      /not a valid environment variable name/,
    );
  });
});

describe('shell timeouts and cancellation', () => {
  // The shell prints its own pid and its background child's, then waits forever.
  const hung = ['sh', '-c', 'echo $$; sleep 1000 & echo $!; wait'];

  function pidsOf(stdout: string): number[] {
    return stdout.trim().split('\n').map(Number);
  }

  it('kills a hung command with its children on timeout, leaving no orphan', async () => {
    const response = await callTool(shellTool({ root }), {
      command: hung,
      // Long enough for a loaded machine to start both processes; the outcome, not the
      // duration, is asserted.
      timeoutMs: 1000,
    });
    expect(codeOf(response)).toBe('TIMEOUT');
    const pids = pidsOf((response.data as ShellData).stdout);
    expect(pids).toHaveLength(2);
    for (const pid of pids) await waitUntilGone(pid);
  });

  it('kills the process group when the context signal aborts', async () => {
    // A FIFO tells the test, without polling, that the command is running.
    const fifo = join(root, 'started');
    await promisify(execFile)('mkfifo', [fifo]);
    const controller = new AbortController();
    const call = callTool(
      shellTool({ root }),
      {
        command: ['sh', '-c', 'sleep 1000 & echo $$ $! > started; wait'],
      },
      { signal: controller.signal },
    );
    const pids = (await readFile(fifo, 'utf8')).trim().split(' ').map(Number);
    controller.abort();
    const response = await call;
    expect(codeOf(response)).toBe('EXECUTION_ERROR');
    expect(response.status === 'error' && response.errorInfo.cancelled).toBe(
      true,
    );
    expect(pids).toHaveLength(2);
    for (const pid of pids) await waitUntilGone(pid);
  });

  it('reports TIMEOUT when the signal aborts with a timeout reason', async () => {
    const controller = new AbortController();
    controller.abort(new DOMException('registry timeout', 'TimeoutError'));
    const response = await callTool(
      shellTool({ root }),
      { command: ['true'] },
      { signal: controller.signal },
    );
    expect(codeOf(response)).toBe('TIMEOUT');
  });

  it('kills what a finished command left running in the background', async () => {
    const response = await callTool(shellTool({ root }), {
      command: ['sh', '-c', 'sleep 1000 > /dev/null 2>&1 & echo $!'],
    });
    expect(response.status).toBe('success');
    const [pid] = pidsOf((response.data as ShellData).stdout);
    expect(pid).toBeGreaterThan(0);
    // Its output went to /dev/null, so nothing held the pipes; it was killed with the group.
    await waitUntilGone(pid ?? 0);
  });
});

/**
 * Waits for a process that was sent SIGKILL to finish dying. A dying process closes its pipes
 * a moment before it turns into a zombie, so the tool can return inside that moment. Polls
 * between event-loop turns with a generous bound; no fixed sleep.
 */
async function waitUntilGone(pid: number): Promise<void> {
  const deadline = performance.now() + 5000;
  while (!isGone(pid) && performance.now() < deadline) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(isGone(pid), `pid ${pid} is still running`).toBe(true);
}

/** Pids of live processes whose command line contains `token`. */
async function livePidsWith(token: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(
      () => '',
    );
    if (cmdline.split('\0').includes(token) && !isGone(Number(entry))) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

describe('shell without isolation: processes that leave the group', () => {
  it('kills a setsid process on timeout, found by the marker it inherited', async () => {
    const token = String(700_000 + (process.pid % 99_999));
    const response = await callTool(
      shellTool({ root, allowShellString: true }),
      {
        command: `setsid sleep ${token} & echo started; sleep ${token}`,
        timeoutMs: 1000,
      },
    );
    expect(codeOf(response)).toBe('TIMEOUT');
    expect((response.data as ShellData).stdout).toBe('started\n');
    const deadline = performance.now() + 5000;
    let live = await livePidsWith(token);
    while (live.length > 0 && performance.now() < deadline) {
      live = await livePidsWith(token);
    }
    expect(live).toEqual([]);
  });

  it('kills nohup, double-fork, setsid and SIGTERM/SIGHUP-ignoring daemons once the command ends', async () => {
    const token = String(600_000 + (process.pid % 99_999));
    const response = await callTool(shellTool({ root }), {
      command: [
        'sh',
        '-c',
        [
          `nohup sleep ${token} >/dev/null 2>&1 &`,
          `( ( sleep ${token} & ) & )`,
          `setsid sh -c 'trap "" TERM HUP INT; sleep ${token}' >/dev/null 2>&1 &`,
          `(trap "" TERM HUP; exec sleep ${token}) &`,
          'echo started',
        ].join('\n'),
      ],
    });
    expect(response.status).toBe('success');
    expect((response.data as ShellData).stdout).toBe('started\n');
    const deadline = performance.now() + 5000;
    let live = await livePidsWith(token);
    while (live.length > 0 && performance.now() < deadline) {
      live = await livePidsWith(token);
    }
    expect(live).toEqual([]);
  });
});

/** Pids whose command line holds `token`, read newest first and without yielding. */
function hoppersWith(token: string): number[] {
  const pids: number[] = [];
  const names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  for (const pid of names.map(Number).sort((a, b) => b - a)) {
    try {
      const cmdline = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8');
      if (cmdline.split('\0').includes(token) && !isGone(pid)) pids.push(pid);
    } catch {
      // Gone already.
    }
  }
  return pids;
}

/** Stops then kills every process whose command line holds `token`, until none is left. */
function stopAndKillAll(token: string): void {
  for (let quiet = 0, scan = 0; quiet < 3 && scan < 500; scan += 1) {
    const live = hoppersWith(token);
    quiet = live.length === 0 ? quiet + 1 : 0;
    for (const pid of live) {
      try {
        process.kill(pid, 'SIGSTOP');
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }
}

describe('shell without isolation: a fork loop that left the group', () => {
  it('leaves no survivor of a setsid process that keeps replacing itself', async () => {
    // Each copy starts the next and exits at once, so one scan of /proc can list a copy that is
    // gone when it is read, its successor not yet listed: one scan let a call's copies escape
    // about one time in three. The copies hold no pipe of the call (as a daemon would not), so
    // the call answers when `sh` exits.
    await writeFile(join(root, 'hop.sh'), '#!/bin/sh\n"$0" "$1" &\nexit 0\n', {
      mode: 0o755,
    });
    const token = `hop-${String(process.pid)}`;
    try {
      for (let call = 0; call < 8; call += 1) {
        const response = await callTool(shellTool({ root }), {
          command: [
            'sh',
            '-c',
            `setsid ./hop.sh ${token} >/dev/null 2>&1 & echo started`,
          ],
        });
        expect(response.status).toBe('success');
        expect((response.data as ShellData).stdout).toBe('started\n');
        // Every copy is killed before the call answers; a survivor keeps hopping, and one look
        // can miss it the way one scan can, so any sighting in ten looks is an escape.
        const sightings: number[] = [];
        for (let look = 0; look < 10; look += 1) {
          sightings.push(...hoppersWith(token));
        }
        expect(sightings).toEqual([]);
      }
    } finally {
      stopAndKillAll(token);
    }
  });
});

describe('shell isolation without bubblewrap', () => {
  it('refuses to run, rather than run unisolated, when bubblewrap is unusable', async () => {
    const tool = shellTool({ root, bwrapPath: join(root, 'no-bwrap-here') });
    const response = await callTool(tool, {
      command: ['sh', '-c', 'touch ran'],
      isolate: true,
    });
    expect(codeOf(response)).toBe('EXECUTION_ERROR');
    expect(response.text).toContain('did not run');
    await expect(readFile(join(root, 'ran'))).rejects.toThrow();
  });

  it('does not claim a sandbox in its description', () => {
    const { description } = shellTool({ root });
    expect(description).toContain('Not a sandbox');
    expect(description).not.toMatch(/runs (in|inside) a sandbox/i);
  });
});

const bubblewrap = await probeBubblewrap();

describe.skipIf(!bubblewrap.available)(
  `shell isolation with bubblewrap${bubblewrap.available ? '' : ` (skipped: ${bubblewrap.reason})`}`,
  () => {
    let server: Server;
    let port: number;

    beforeEach(async () => {
      server = createServer((_request, response) => response.end('reachable'));
      await new Promise<void>((resolve) =>
        server.listen(0, '127.0.0.1', resolve),
      );
      port = (server.address() as AddressInfo).port;
    });

    afterEach(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('may write inside the root', async () => {
      const response = await callTool(shellTool({ root }), {
        command: ['sh', '-c', 'echo made > inside.txt'],
        isolate: true,
      });
      expect(response.status).toBe('success');
      expect(await readFile(join(root, 'inside.txt'), 'utf8')).toBe('made\n');
    });

    it('may not write outside the root', async () => {
      const outside = `/var/tmp/candor-isolation-${process.pid}`;
      const response = await callTool(shellTool({ root }), {
        command: ['touch', outside],
        isolate: true,
      });
      expect(codeOf(response)).toBe('EXECUTION_ERROR');
      expect((response.data as ShellData).stderr).toContain('Read-only');
      await expect(readFile(outside)).rejects.toThrow();
    });

    it('has no network, while the same command reaches the server unisolated', async () => {
      const script = `fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log(t))`;
      const command = [process.execPath, '-e', script];
      const open = await callTool(shellTool({ root }), { command });
      expect(open.status).toBe('success');
      expect((open.data as ShellData).stdout).toBe('reachable\n');
      const isolated = await callTool(shellTool({ root, isolate: true }), {
        command,
      });
      expect(codeOf(isolated)).toBe('EXECUTION_ERROR');
      expect((isolated.data as ShellData).stderr).toContain('fetch failed');
    });

    it('holds as root: the read-only root cannot be remounted writable, so nothing lands outside', async () => {
      const outside = `/var/tmp/candor-remount-${process.pid}`;
      const response = await callTool(shellTool({ root, isolate: true }), {
        command: [
          'sh',
          '-c',
          `mount -o remount,rw,bind / ; touch ${outside}; echo uid=$(id -u)`,
        ],
      });
      // The last command is the echo, so the exit code is 0; what matters is the outside file.
      expect(response.status).toBe('success');
      const data = response.data as ShellData;
      expect(data.stderr).toMatch(/permission denied|not permitted/i);
      expect(data.stderr).toContain('Read-only');
      await expect(readFile(outside)).rejects.toThrow();
    });

    it('leaves no setsid survivor once the command ends', async () => {
      const token = String(800_000 + (process.pid % 99_999));
      const response = await callTool(shellTool({ root, isolate: true }), {
        command: ['sh', '-c', `setsid sleep ${token} & echo started`],
      });
      expect(response.status).toBe('success');
      expect((response.data as ShellData).stdout).toBe('started\n');
      const deadline = performance.now() + 5000;
      let live = await livePidsWith(token);
      while (live.length > 0 && performance.now() < deadline) {
        live = await livePidsWith(token);
      }
      expect(live).toEqual([]);
    });

    it('kills a hung isolated command with everything it started', async () => {
      const token = String(900_000 + (process.pid % 99_999));
      const response = await callTool(shellTool({ root, isolate: true }), {
        command: ['sh', '-c', `sleep ${token} & echo started; sleep ${token}`],
        timeoutMs: 1500,
      });
      expect(codeOf(response)).toBe('TIMEOUT');
      // The background sleep had started before the kill, so its absence means something.
      expect((response.data as ShellData).stdout).toBe('started\n');
      const deadline = performance.now() + 5000;
      let live = await livePidsWith(token);
      while (live.length > 0 && performance.now() < deadline) {
        live = await livePidsWith(token);
      }
      expect(live).toEqual([]);
    });
  },
);
