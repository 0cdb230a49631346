import { parseArgs } from 'node:util';
import { describeThrown } from '@candor/errors';
import { type Logger } from '@candor/tools';
import { createRedisBreakerStore } from '../create-redis-breaker-store.ts';
import { checkToolName } from '../fleet-control.ts';
import { storeDefaults } from '../redis-breaker-store-options.ts';
import {
  formatFleetStatus,
  printable,
  terminalJson,
} from './format-fleet-status.ts';
import { type FleetTarget, readFleetTarget } from './read-fleet-target.ts';

/** Where `candor-fleet` writes; `process` in the bin. */
export interface FleetCliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Read for `REDIS_URL`; `process.env` when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Exit codes of `candor-fleet`. */
export const FleetCliExit = {
  /** Done: the hold was written, or the status read. */
  Ok: 0,
  /** Redis could not be reached or used, or the write failed: nothing was changed. */
  Failed: 1,
  /** The command line was wrong. */
  Usage: 2,
} as const;

/** One of {@link FleetCliExit}. */
export type FleetCliExit = (typeof FleetCliExit)[keyof typeof FleetCliExit];

const usage = `Usage: candor-fleet <command> [tool] [options]

Operates the fleet-wide circuit breakers of every process sharing one Redis and key prefix
(@candor/breaker-redis). Each hold reaches every process at once and lasts until released.

Commands:
  status           every tool: fleet state, hold, window counts, trial holder, last transition
  open <tool>      hold the tool open everywhere (a kill switch): every call refused, no trial
  close <tool>     hold the tool closed everywhere: every call admitted, whatever the window
  release <tool>   remove the hold: closed with an empty window, the fleet's rules apply again

Options:
  --url <url>        redis:// or rediss:// URL (default $REDIS_URL, else redis://127.0.0.1:6379)
  --cluster <url>[,<url>...]
                     a Redis Cluster instead: some of its nodes' URLs (the rest are discovered)
  --sentinel <host:port>[,<host:port>...] --name <primary>
                     a Sentinel-monitored primary instead ($REDIS_PASSWORD for the data nodes)
  --prefix <prefix>  the fleet's key prefix, as the processes' keyPrefix (default ${storeDefaults.keyPrefix})
  --timeout-ms <ms>  how long to wait for Redis to answer (default 2000)
  --json             print JSON instead of text
  -h, --help         show this help

Exit codes: 0 done, 1 Redis unreachable or the write failed (nothing changed), 2 bad input.
`;

const commands = ['status', 'open', 'close', 'release'] as const;
type Command = (typeof commands)[number];

function isCommand(name: string | undefined): name is Command {
  return (commands as readonly (string | undefined)[]).includes(name);
}

interface Invocation {
  readonly command: Command;
  readonly tool: string | undefined;
  readonly target: FleetTarget;
  readonly prefix: string;
  readonly timeoutMs: number;
  readonly json: boolean;
}

/** The invocation, or the one-line reason it is not one (`help` for --help). */
function read(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Invocation | string {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: 'string' },
        cluster: { type: 'string' },
        sentinel: { type: 'string' },
        name: { type: 'string' },
        prefix: { type: 'string', default: storeDefaults.keyPrefix },
        'timeout-ms': { type: 'string', default: '2000' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error: unknown) {
    return error instanceof Error ? error.message : String(error);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [command, tool, ...extra] = positionals;
  if (!isCommand(command)) {
    return command === undefined
      ? `a command is needed: ${commands.join(', ')}`
      : `unknown command ${JSON.stringify(printable(command))}: use ${commands.join(', ')}`;
  }
  if (command === 'status' && tool !== undefined) {
    return `status takes no tool, got ${JSON.stringify(printable(tool))}`;
  }
  if (command !== 'status') {
    if (tool === undefined) return `${command} needs a tool name`;
    try {
      checkToolName(tool);
    } catch (error: unknown) {
      return describeThrown(error);
    }
  }
  if (extra.length > 0) {
    return `unexpected argument ${JSON.stringify(printable(extra[0] ?? ''))}`;
  }
  const target = readFleetTarget(values, env);
  if (typeof target === 'string') return target;
  if (values.prefix === '') return '--prefix must not be empty';
  const timeout = values['timeout-ms'];
  const timeoutMs = Number(timeout);
  if (!/^\d+$/.test(timeout) || timeoutMs < 1 || timeoutMs > 600_000) {
    return `--timeout-ms must be a whole number of ms from 1 to 600000, got ${JSON.stringify(printable(timeout))}`;
  }
  return {
    command,
    tool,
    target,
    prefix: values.prefix,
    timeoutMs,
    json: values.json,
  };
}

/** A logger that keeps the store's first warning: why it could not use Redis. */
function firstWarning(): { logger: Logger; reason: () => string | undefined } {
  let reason: string | undefined;
  const ignore = (): void => undefined;
  const logger: Logger = {
    trace: ignore,
    debug: ignore,
    info: ignore,
    error: ignore,
    warn: (first: unknown, second?: unknown) => {
      const fields = first as { error?: unknown } | undefined;
      const text =
        typeof fields?.error === 'string'
          ? fields.error
          : typeof second === 'string'
            ? second
            : undefined;
      reason ??= text?.split('\n')[0];
    },
    child: () => logger,
  };
  return { logger, reason: () => reason };
}

/**
 * Runs `candor-fleet` with the given arguments and resolves with its exit code. Never throws:
 * bad input is one line on stderr and exit 2; a Redis that cannot be reached or used is one line
 * and exit 1, as soon as the connection is refused (or after `--timeout-ms` of silence).
 *
 * @example
 * ```ts
 * process.exitCode = await runFleetCli(process.argv.slice(2), process);
 * ```
 */
export async function runFleetCli(
  argv: readonly string[],
  io: FleetCliIo,
): Promise<FleetCliExit> {
  const invocation = read(argv, io.env ?? process.env);
  if (invocation === 'help') {
    io.stdout.write(usage);
    return FleetCliExit.Ok;
  }
  if (typeof invocation === 'string') {
    io.stderr.write(
      `candor-fleet: ${invocation} (candor-fleet --help for usage)\n`,
    );
    return FleetCliExit.Usage;
  }
  const { command, tool, prefix, timeoutMs, json } = invocation;
  const where = `the fleet ${JSON.stringify(prefix)} at ${invocation.target.shown}`;
  const warnings = firstWarning();
  const store = createRedisBreakerStore({
    ...invocation.target.options,
    keyPrefix: prefix,
    connectTimeoutMs: timeoutMs,
    commandTimeoutMs: timeoutMs,
    logger: warnings.logger,
  });
  const fail = (message: string): FleetCliExit => {
    io.stderr.write(`candor-fleet: ${printable(message)}\n`);
    return FleetCliExit.Failed;
  };
  try {
    if (!(await store.connect())) {
      return fail(
        `cannot use ${where}: ${warnings.reason() ?? `no answer within ${timeoutMs} ms`}`,
      );
    }
    const out = (text: object | string): void => {
      io.stdout.write(
        typeof text === 'string' ? text : `${terminalJson(text)}\n`,
      );
    };
    const name = JSON.stringify(printable(tool ?? ''));
    switch (command) {
      case 'status': {
        const status = await store.fleet.status();
        out(
          json
            ? status
            : formatFleetStatus(status, {
                url: invocation.target.shown,
                prefix,
              }),
        );
        return FleetCliExit.Ok;
      }
      case 'open':
      case 'close': {
        const record =
          command === 'open'
            ? await store.fleet.forceOpen(tool ?? '')
            : await store.fleet.forceClose(tool ?? '');
        const held = command === 'open' ? 'open' : 'closed';
        out(
          json
            ? { tool, action: command, record }
            : `${name} is held ${held} in every process of ${where}, until \`candor-fleet release\`\n`,
        );
        return FleetCliExit.Ok;
      }
      case 'release': {
        const released = await store.fleet.release(tool ?? '');
        out(
          json
            ? { tool, action: command, released }
            : released
              ? `${name} is released in ${where}: closed, with an empty window\n`
              : `${name} held no hold in ${where}: nothing changed\n`,
        );
        return FleetCliExit.Ok;
      }
    }
  } catch (error: unknown) {
    return fail(describeThrown(error).split('\n')[0] ?? 'failed');
  } finally {
    await store.close();
  }
}
