import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import {
  mkdir,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import { isGone } from './__fixtures__/process-state.ts';
import { bubblewrapArgs, probeBubblewrap } from './bubblewrap.ts';
import { shellTool } from './shell-tool.ts';

/**
 * Attacks on what the isolated shell promises (README, docs/builtins.md, bubblewrap.ts): each
 * runs a real command under bubblewrap, in the mode this suite runs in (root in CI).
 */

interface ShellData {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  stdoutBytes: number;
  truncated: boolean;
}

const bubblewrap = await probeBubblewrap();
const asRoot = process.getuid?.() === 0;

let root: string;
let cleanup: () => Promise<void>;
/** A directory outside the root (and outside /tmp, which the sandbox replaces). */
let outside: string;
// Sleep lengths that mark this file's processes: a range no other test file uses.
let token = 400_000 + (process.pid % 40_000) * 2;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
  outside = `/var/tmp/candor-bwrap-attack-${String(process.pid)}-${String((token += 1))}`;
  await mkdir(outside);
});

afterEach(async () => {
  await cleanup();
  await rm(outside, { recursive: true, force: true });
});

async function isolated(
  command: string[],
  options: { timeoutMs?: number; maxOutputBytes?: number } = {},
) {
  const response = await callTool(
    shellTool({
      root,
      isolate: true,
      ...(options.maxOutputBytes === undefined
        ? {}
        : { maxOutputBytes: options.maxOutputBytes }),
    }),
    {
      command,
      ...(options.timeoutMs === undefined
        ? {}
        : { timeoutMs: options.timeoutMs }),
    },
  );
  return { response, data: response.data as ShellData };
}

/** Live processes with `mark` as one of their arguments. */
async function liveWith(mark: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(
      () => '',
    );
    if (cmdline.split('\0').includes(mark) && !isGone(Number(entry))) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

/** Scans /proc until no process carries `mark`, for at most 5 s; returns the survivors. */
async function survivors(mark: string): Promise<number[]> {
  const deadline = performance.now() + 5000;
  let live = await liveWith(mark);
  while (live.length > 0 && performance.now() < deadline) {
    live = await liveWith(mark);
  }
  return live;
}

describe.skipIf(!bubblewrap.available)(
  `isolated shell under attack${bubblewrap.available ? '' : ` (skipped: ${bubblewrap.reason})`}`,
  () => {
    it('cannot change host kernel settings through /proc/sys, even when the agent is root', async () => {
      const setting = '/proc/sys/kernel/printk_ratelimit';
      const before = await readFile(setting, 'utf8');
      // Writes back the value it read: harmless if it got through, and proof that it could.
      const { response, data } = await isolated([
        'sh',
        '-c',
        `v=$(cat ${setting}) && echo "$v" > ${setting} && echo written`,
      ]);
      expect(codeOf(response)).toBe('EXECUTION_ERROR');
      expect(data.stdout).toBe('');
      expect(data.stderr).toMatch(
        asRoot ? /Read-only/ : /Read-only|Permission denied/,
      );
      expect(await readFile(setting, 'utf8')).toBe(before);
    });

    it('cannot write outside the root through a symbolic link inside it', async () => {
      await symlink(outside, join(root, 'door'));
      const { response, data } = await isolated([
        'sh',
        '-c',
        'echo leaked > door/file',
      ]);
      expect(codeOf(response)).toBe('EXECUTION_ERROR');
      expect(data.stderr).toContain('Read-only');
      expect(existsSync(join(outside, 'file'))).toBe(false);
    });

    it('cannot make a hard link to a file outside the root, to write it from inside', async () => {
      const target = join(outside, 'target');
      await writeFile(target, 'original\n');
      const { response, data } = await isolated([
        'sh',
        '-c',
        `ln ${target} linked && echo changed > linked`,
      ]);
      expect(codeOf(response)).toBe('EXECUTION_ERROR');
      expect(data.stderr).toMatch(/cross-device|not permitted/i);
      expect(await readFile(target, 'utf8')).toBe('original\n');
    });

    it('writes to /tmp and /dev/shm stay in the sandbox', async () => {
      const name = `candor-private-${String(token)}`;
      const { response } = await isolated([
        'sh',
        '-c',
        `echo x > /tmp/${name} && echo y > /dev/shm/${name} && cat /tmp/${name} /dev/shm/${name}`,
      ]);
      expect(response.status).toBe('success');
      expect(existsSync(`/tmp/${name}`)).toBe(false);
      expect(existsSync(`/dev/shm/${name}`)).toBe(false);
    });

    it('cannot read the environment of a host process (the agent’s secrets), which an unisolated command can', async () => {
      const secret = `candor-secret-${String(token)}-value`;
      const mark = String((token += 1));
      // A host process holding a secret in its environment, as the agent does.
      const holder = spawn('sleep', [mark], {
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', API_KEY: secret },
        stdio: 'ignore',
      });
      try {
        await once(holder, 'spawn');
        const grep = [
          'sh',
          '-c',
          `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -F ${secret}; true`,
        ];
        const open = await callTool(shellTool({ root }), { command: grep });
        expect((open.data as ShellData).stdout).toContain(secret);
        const { response, data } = await isolated(grep);
        expect(response.status).toBe('success');
        expect(data.stdout).not.toContain(secret);
      } finally {
        holder.kill('SIGKILL');
      }
    });

    it('nohup, double fork, setsid and SIGTERM/SIGHUP-ignoring daemons all end with the command', async () => {
      const mark = String((token += 1));
      const { response, data } = await isolated([
        'sh',
        '-c',
        [
          `nohup sleep ${mark} >/dev/null 2>&1 &`,
          `( ( sleep ${mark} & ) & )`,
          `setsid sh -c 'trap "" TERM HUP INT; sleep ${mark}' >/dev/null 2>&1 &`,
          `(trap "" TERM HUP; exec sleep ${mark}) &`,
          'echo started',
        ].join('\n'),
      ]);
      expect(response.status).toBe('success');
      expect(data.stdout).toBe('started\n');
      expect(await survivors(mark)).toEqual([]);
    });

    it('dies with the agent: killing the process that started bubblewrap ends everything inside', async () => {
      const mark = String((token += 1));
      const args = bubblewrapArgs({
        root,
        cwd: root,
        file: '/bin/sh',
        // "started" only once the background sleep has exec'd, so the host can see it.
        args: [
          '-c',
          `sleep ${mark} & until [ "$(cat /proc/$!/comm)" = sleep ]; do :; done; echo started; wait`,
        ],
      });
      // A stand-in for the agent: a Node process that starts bubblewrap and is then killed.
      const agent: ChildProcess = spawn(
        process.execPath,
        [
          '-e',
          `require('node:child_process').spawn(${JSON.stringify(bubblewrap.available ? bubblewrap.bwrap : 'bwrap')}, JSON.parse(process.argv[1]), { stdio: ['ignore', 'inherit', 'inherit'] })`,
          JSON.stringify(args),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      try {
        let out = '';
        await new Promise<void>((resolve) => {
          agent.stdout?.on('data', (chunk: Buffer) => {
            out += chunk.toString('utf8');
            if (out.includes('started')) resolve();
          });
        });
        expect(await liveWith(mark)).not.toEqual([]);
        const exited = once(agent, 'exit');
        agent.kill('SIGKILL');
        await exited;
        expect(await survivors(mark)).toEqual([]);
      } finally {
        agent.kill('SIGKILL');
      }
    });

    it('output without end is cut at the cap and the command killed at its time limit', async () => {
      // 1 MiB at once, then output that never ends: the count cannot depend on the machine's speed.
      const { response, data } = await isolated(
        ['sh', '-c', 'head -c 1048576 /dev/zero | tr "\\0" x; exec yes candor'],
        { maxOutputBytes: 1024, timeoutMs: 1500 },
      );
      expect(codeOf(response)).toBe('TIMEOUT');
      expect(data.truncated).toBe(true);
      expect(data.stdoutBytes).toBeGreaterThan(1024 * 1024);
      expect(data.stdout.startsWith('x'.repeat(500))).toBe(true);
      // Head and tail of 512 bytes each, plus the marker between them.
      expect(Buffer.byteLength(data.stdout)).toBeLessThan(1024 + 100);
    });

    describe('what it does not stop (documented)', () => {
      let server: Server | undefined;
      afterEach(async () => {
        if (server === undefined) return;
        server.close();
        await once(server, 'close');
        server = undefined;
      });

      it('reads a file outside the root that the agent’s user can read', async () => {
        const file = join(outside, 'private');
        await writeFile(file, 'not a secret from the sandbox\n', {
          mode: 0o600,
        });
        const { response, data } = await isolated(['cat', file]);
        expect(response.status).toBe('success');
        expect(data.stdout).toBe('not a secret from the sandbox\n');
      });

      it('connects to a Unix-domain socket outside the root: the network namespace does not cover them', async () => {
        const path = join(outside, 'host.sock');
        server = createServer((socket) => {
          socket.end('host service\n');
        });
        server.listen(path);
        await once(server, 'listening');
        const { response, data } = await isolated([
          process.execPath,
          '-e',
          `require('node:net').connect(${JSON.stringify(path)}).pipe(process.stdout)`,
        ]);
        expect(response.status).toBe('success');
        expect(data.stdout).toBe('host service\n');
      });
    });
  },
);
