import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isGone } from './__fixtures__/process-state.ts';
import { killMarked, RUN_MARKER } from './kill-marked.ts';

/** Live processes whose command line holds `token`. */
function liveWith(token: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc').filter((entry) =>
    /^\d+$/.test(entry),
  )) {
    const pid = Number(name);
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.split('\0').includes(token) && !isGone(pid)) pids.push(pid);
    } catch {
      // Gone already.
    }
  }
  return pids;
}

const token = `kill-marked-${String(process.pid)}`;

afterEach(() => {
  for (const pid of liveWith(token)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
});

describe('killMarked', () => {
  it('kills a process of the run that cleared its environment and left the group, by its session', async () => {
    const marker = randomBytes(12).toString('hex');
    // The session leader (marked) starts a copy that moves to a process group of its own and
    // clears its environment: no marker and no group of a marked process, only the session.
    // It says when it is in place, so the kill cannot come before it.
    const unmarked =
      'setpgrp(0, 0); exec {"/usr/bin/env"} "env", "-i", $^X, "-e", ' +
      '"\\$| = 1; print qq(ready\\\\n); close STDOUT; sleep 1000", $ARGV[0]';
    const child = spawn(
      'sh',
      [
        '-c',
        `perl -e '${unmarked}' "$1" & exec perl -e 'sleep 1000' "$1"`,
        'sh',
        token,
      ],
      {
        detached: true,
        env: { ...process.env, [RUN_MARKER]: marker },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    expect(chunk.toString()).toBe('ready\n');
    const before = liveWith(token);
    expect(before).toHaveLength(2);
    const exited = once(child, 'exit');

    expect(killMarked(marker)).toBe(2);

    await exited;
    expect(before.filter((pid) => !isGone(pid))).toEqual([]);
    expect(liveWith(token)).toEqual([]);
  });

  it('kills nothing that does not carry the marker', () => {
    expect(killMarked(randomBytes(12).toString('hex'))).toBe(0);
  });
});
