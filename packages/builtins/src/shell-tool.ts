import { stat } from 'node:fs/promises';
import { classifyError } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import {
  bubblewrapArgs,
  type IsolationSupport,
  probeBubblewrap,
} from './bubblewrap.ts';
import { errorResponse } from './error-response.ts';
import { findExecutable } from './find-executable.ts';
import { positiveOption } from './positive-option.ts';
import { type ProcessResult, runProcess } from './run-process.ts';
import { WorkspaceGuard } from './workspace-guard.ts';
import { builtinTraits } from './builtin-annotations.ts';

/** Options of {@link shellTool}. */
export interface ShellToolOptions {
  /** Commands run in this directory or below it. */
  readonly root: string;
  /**
   * Accept a string command and run it through `/bin/sh -c`. Off by default: an argv array runs
   * one program with exactly those arguments, with no globbing, pipes or variable expansion.
   */
  readonly allowShellString?: boolean;
  /** Names of variables copied from `baseEnv`. Everything else is left out. */
  readonly envAllowlist?: readonly string[];
  /** Where allowlisted variables come from. `process.env` by default. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Variables every command gets, on top of the allowlisted ones. */
  readonly env?: Readonly<Record<string, string>>;
  /** Default time limit of a command. 30 000 ms. */
  readonly timeoutMs?: number;
  /** The highest time limit a call may ask for. 600 000 ms. */
  readonly maxTimeoutMs?: number;
  /** Bytes kept of stdout and of stderr each (head and tail). 1 MiB. */
  readonly maxOutputBytes?: number;
  /**
   * `true`: every command runs under bubblewrap (no network interface, only the root writable),
   * and calls fail when bubblewrap is not usable. Otherwise a call may ask for it with
   * `isolate: true`. It does not stop reads of what the agent's user may read, nor connections
   * to Unix-domain sockets on the file system.
   */
  readonly isolate?: boolean;
  /** The bubblewrap executable. `bwrap`, looked up in PATH. */
  readonly bwrapPath?: string;
}

/** Variables passed through when no allowlist is given. */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TERM',
  'TMPDIR',
]);

const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function buildEnv(
  options: ShellToolOptions,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const base = options.baseEnv ?? process.env;
  const env: Record<string, string> = {};
  for (const name of options.envAllowlist ?? DEFAULT_ENV_ALLOWLIST) {
    const value = base[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...options.env, ...extra };
}

function outputText(result: ProcessResult): string {
  const parts: string[] = [];
  if (result.stdout.text !== '') parts.push(result.stdout.text);
  if (result.stderr.text !== '') {
    parts.push(`[stderr]\n${result.stderr.text}`);
  }
  return parts.length === 0 ? '(no output)' : parts.join('\n');
}

function dataOf(result: ProcessResult, command: readonly string[]) {
  return {
    command,
    exitCode: result.exitCode,
    signal: result.signal,
    stdout: result.stdout.text,
    stderr: result.stderr.text,
    stdoutBytes: result.stdout.bytes,
    stderrBytes: result.stderr.bytes,
    truncated: result.stdout.truncated || result.stderr.truncated,
  };
}

/** The outcome of a finished process: its exit code decides, never the words it printed. */
function outcome(
  result: ProcessResult,
  command: readonly string[],
  context: { readonly signal: AbortSignal; readonly timeoutMs: number },
): ToolResponse {
  const data = dataOf(result, command);
  if (result.aborted) {
    const classified = classifyError(context.signal.reason);
    return ToolResponse.error(classified.code, classified.message, {
      ...(classified.cancelled === true ? { cancelled: true } : {}),
      data,
    });
  }
  if (result.timedOut) {
    return ToolResponse.error(
      'TIMEOUT',
      `The command did not finish within ${context.timeoutMs} ms; it was killed with every process it started`,
      {
        data: { ...data, timedOut: true },
        text: `Timed out after ${context.timeoutMs} ms\n${outputText(result)}`,
      },
    );
  }
  if (result.exitCode === 0) {
    if (data.truncated) {
      return ToolResponse.partial(
        `${outputText(result)}\n[shell: output passed the cap; the middle was left out]`,
        { reason: 'output_cap', data },
      );
    }
    return ToolResponse.success(outputText(result), { data });
  }
  const how =
    result.exitCode === null
      ? `was killed by ${result.signal ?? 'a signal'}`
      : `exited with code ${result.exitCode}`;
  return ToolResponse.error('EXECUTION_ERROR', `The command ${how}`, {
    retryable: false,
    details: { exitCode: result.exitCode, signal: result.signal },
    data,
    text: `The command ${how}\n${outputText(result)}`,
  });
}

/**
 * `shell`: runs a command inside the workspace root. Its outcome is its exit code: 0 is
 * SUCCESS even when the output says "Error", anything else is ERROR `EXECUTION_ERROR` with exit
 * code, signal, stdout and stderr in `data`.
 *
 * Also: TIMEOUT (the whole process group is killed), NOT_FOUND for a missing program,
 * PERMISSION_DENIED for one that is not executable, PARTIAL (`reason: 'output_cap'`) for a
 * successful command whose output passed the cap (head and tail kept). Stdin is closed, the
 * environment is an allowlist, and the working directory must be inside the root.
 *
 * Without isolation this is not a sandbox: the command can do whatever the user running it can.
 * With bubblewrap available, `isolate` runs it with no network interface and only the root
 * writable; it can still read what the agent's user can, and reach Unix-domain sockets.
 *
 * @example
 * ```ts
 * registry.register(shellTool({ root: process.cwd() }));
 * await registry.call('shell', { command: ['git', 'status', '--short'] });
 * ```
 */
export function shellTool(options: ShellToolOptions) {
  const guard = new WorkspaceGuard(options.root);
  const timeoutMs = positiveOption(
    'shellTool: timeoutMs',
    options.timeoutMs,
    30_000,
  );
  const maxTimeoutMs = positiveOption(
    'shellTool: maxTimeoutMs',
    options.maxTimeoutMs,
    Math.max(600_000, timeoutMs),
  );
  const maxOutputBytes = positiveOption(
    'shellTool: maxOutputBytes',
    options.maxOutputBytes,
    1024 * 1024,
  );
  for (const name of [
    ...(options.envAllowlist ?? []),
    ...Object.keys(options.env ?? {}),
  ]) {
    if (!ENV_NAME.test(name)) {
      throw new TypeError(
        `shellTool: ${JSON.stringify(name)} is not a valid environment variable name`,
      );
    }
  }
  const allowString = options.allowShellString === true;
  let isolation: Promise<IsolationSupport> | undefined;
  const argv = z
    .array(z.string())
    .min(1)
    .describe('The program and its arguments, e.g. ["ls", "-la", "src"]');
  const command: z.ZodType<string | string[]> = allowString
    ? z.union([
        argv,
        z.string().trim().min(1).describe('A command line for /bin/sh -c'),
      ])
    : argv;
  const isolationText =
    options.isolate === true
      ? 'Commands run under bubblewrap with no network and only the workspace writable.'
      : 'Not a sandbox: the command runs with the permissions of the user running the agent. ' +
        'Pass isolate: true to run it with no network and only the workspace writable (needs bubblewrap).';
  return defineTool({
    name: 'shell',
    ...builtinTraits('shell'),
    description:
      `Runs a command in the workspace and reports its exit code, stdout and stderr. ${
        allowString
          ? 'Give argv (an array, no shell) or a string for /bin/sh -c.'
          : 'Give argv as an array; no shell interprets it.'
      } Stdin is closed. ` + isolationText,
    input: z.object({
      command,
      cwd: z
        .string()
        .min(1)
        .default('.')
        .describe('Working directory, relative to the workspace root'),
      timeoutMs: z
        .number()
        .int()
        .positive()
        .max(maxTimeoutMs)
        .optional()
        .describe(`Time limit in milliseconds. Default ${timeoutMs}.`),
      env: z
        .record(
          z.string().regex(ENV_NAME, 'not a valid variable name'),
          z.string(),
        )
        .optional()
        .describe('Extra environment variables'),
      isolate: z
        .boolean()
        .optional()
        .describe(
          'Run with no network and only the workspace writable; fails if bubblewrap is unavailable',
        ),
    }),
    run: async (input, context) => {
      const display =
        typeof input.command === 'string'
          ? ['/bin/sh', '-c', input.command]
          : input.command;
      if (display.some((part) => part.includes('\0'))) {
        // execve cannot pass a NUL byte; it is the caller's mistake, not a failure of the tool.
        return ToolResponse.error(
          'INVALID_PARAM',
          'The command contains a NUL character, which no program argument can hold',
        );
      }
      try {
        const cwd = await guard.resolve(input.cwd);
        const cwdInfo = await stat(cwd.absolute);
        if (!cwdInfo.isDirectory()) {
          return ToolResponse.error(
            'INVALID_PARAM',
            `cwd ${cwd.relative} is not a directory`,
            { data: { command: display } },
          );
        }
        const env = buildEnv(options, input.env);
        const [program, ...args] = display;
        if (program === undefined) {
          return ToolResponse.error('INVALID_PARAM', 'The command is empty');
        }
        const found = await findExecutable(
          program,
          env['PATH'] ?? FALLBACK_PATH,
          cwd.absolute,
        );
        if ('problem' in found) {
          return ToolResponse.error(
            found.problem,
            found.problem === 'NOT_FOUND'
              ? `Command not found: ${program}`
              : `Command is not executable: ${program}`,
            { data: { command: display } },
          );
        }
        const isolate = options.isolate === true || input.isolate === true;
        let file = found.path;
        let fileArgs = args;
        if (isolate) {
          isolation ??= probeBubblewrap(options.bwrapPath);
          const support = await isolation;
          if (!support.available) {
            return ToolResponse.error(
              'EXECUTION_ERROR',
              `Isolation was requested but is unavailable, so the command did not run. ${support.reason}`,
              { retryable: false, data: { command: display } },
            );
          }
          file = support.bwrap;
          fileArgs = bubblewrapArgs({
            root: await guard.realRoot(),
            cwd: cwd.absolute,
            file: found.path,
            args,
          });
        }
        context.signal.throwIfAborted();
        const limit = input.timeoutMs ?? timeoutMs;
        const result = await runProcess({
          file,
          args: fileArgs,
          cwd: cwd.absolute,
          env,
          timeoutMs: limit,
          signal: context.signal,
          maxOutputBytes,
        });
        if (result.spawnError !== undefined) {
          return errorResponse(result.spawnError, undefined, {
            command: display,
          });
        }
        if (typeof input.command === 'string' && result.exitCode === 127) {
          // POSIX shells exit 127 exactly when a command was not found.
          return ToolResponse.error(
            'NOT_FOUND',
            `Command not found (the shell exited 127): ${result.stderr.text.trim() || input.command}`,
            { data: dataOf(result, display) },
          );
        }
        return outcome(result, display, {
          signal: context.signal,
          timeoutMs: limit,
        });
      } catch (error: unknown) {
        return errorResponse(error, input.cwd, { command: display });
      }
    },
  });
}
