import { type ChildProcess, spawn } from 'node:child_process';

/** Options of {@link ProcessGroup.run}. */
export interface RunOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed. */
  readonly input?: string;
  /** A hung install must not hang CI: past this the child is killed and the run fails. */
  readonly timeoutMs?: number;
}

/** How a child process ended, with everything it printed. */
export interface RunResult {
  readonly command: string;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const TAIL_LINES = 40;

function tail(text: string): string {
  const lines = text.trimEnd().split('\n');
  return lines.length <= TAIL_LINES
    ? lines.join('\n')
    : [
        `… ${lines.length - TAIL_LINES} lines before`,
        ...lines.slice(-TAIL_LINES),
      ].join('\n');
}

/** A child that exited non-zero, was killed or timed out; the message carries its output. */
export class CommandFailed extends Error {
  override readonly name = 'CommandFailed';
  readonly result: RunResult;

  constructor(result: RunResult) {
    const how = result.timedOut
      ? 'timed out'
      : result.signal === null
        ? `exited with ${result.exitCode}`
        : `was killed by ${result.signal}`;
    const output = [result.stderr, result.stdout]
      .filter((text) => text.trim() !== '')
      .map(tail)
      .join('\n');
    super(`\`${result.command}\` ${how}${output === '' ? '' : `\n${output}`}`);
    this.result = result;
  }
}

/**
 * Starts the install test's child processes and can end them all: each child leads its own
 * process group, so npm's and pnpm's own children go with it.
 */
export class ProcessGroup {
  readonly #children = new Set<ChildProcess>();
  #stopped = false;

  /** Runs a command to its end; resolves however it ended, rejects only if it cannot start. */
  run(
    file: string,
    args: readonly string[],
    options: RunOptions,
  ): Promise<RunResult> {
    const command = [file, ...args].join(' ');
    if (this.#stopped) {
      return Promise.reject(new Error(`not starting \`${command}\`: stopping`));
    }
    return new Promise((resolve, reject) => {
      const child = spawn(file, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      this.#children.add(child);
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => {
        timedOut = true;
        this.#kill(child, 'SIGKILL');
      }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      child.once('error', (error) => {
        clearTimeout(timer);
        this.#children.delete(child);
        reject(new Error(`cannot start \`${command}\`: ${error.message}`));
      });
      child.once('close', (exitCode, signal) => {
        clearTimeout(timer);
        this.#children.delete(child);
        resolve({ command, exitCode, signal, stdout, stderr, timedOut });
      });
      // A child that never reads its stdin closes it early; that is not our failure.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input ?? '');
    });
  }

  /** Runs a command and throws {@link CommandFailed} unless it exits 0. */
  async runOk(
    file: string,
    args: readonly string[],
    options: RunOptions,
  ): Promise<RunResult> {
    const result = await this.run(file, args, options);
    if (result.exitCode !== 0) throw new CommandFailed(result);
    return result;
  }

  /** Kills every running child and its descendants; safe to call from an `exit` handler. */
  killAll(): void {
    for (const child of this.#children) this.#kill(child, 'SIGKILL');
  }

  /** Kills every running child and refuses to start more, for a run that is being stopped. */
  stop(): void {
    this.#stopped = true;
    this.killAll();
  }

  #kill(child: ChildProcess, signal: NodeJS.Signals): void {
    if (child.pid === undefined || child.exitCode !== null) return;
    try {
      // The negative pid names the whole group the detached child leads.
      process.kill(-child.pid, signal);
    } catch {
      // Already gone between the check and the kill.
    }
  }
}
