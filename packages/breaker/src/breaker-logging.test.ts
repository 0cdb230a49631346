import { ToolResponse } from '@candor/tools';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolBreaker, type ToolBreaker } from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

interface Line {
  level: number;
  msg: string;
  component?: string;
  tool?: string;
  [field: string]: unknown;
}

const secretResponse = ToolResponse.error('NETWORK_ERROR', 'refused', {
  data: { token: 'sk-live-123' },
});

/** Drives one full cycle: closed → open (plus one refused call) → half_open → closed. */
async function cycle(breaker: ToolBreaker): Promise<void> {
  await breaker.execute(async () => secretResponse);
  await breaker.execute(async () => secretResponse);
  await breaker.execute(async () => ToolResponse.success('refused'));
  await vi.advanceTimersByTimeAsync(1_000);
  await breaker.execute(async () => ToolResponse.success('recovered'));
}

const created: ToolBreaker[] = [];

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  for (const breaker of created.splice(0)) breaker.shutdown();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('logging', () => {
  it('26. logs open (warn), half-open and close (info) and refusals (debug) with the tool binding', async () => {
    const lines: Line[] = [];
    const logger = pino(
      { level: 'debug', base: null, timestamp: false },
      {
        write: (line: string) => {
          lines.push(JSON.parse(line) as Line);
        },
      },
    );
    const breaker = createToolBreaker('web_fetch', {
      logger,
      minimumCalls: 2,
      resetTimeoutMs: 1_000,
    });
    created.push(breaker);

    await cycle(breaker);

    expect(
      lines.map(({ level, msg, component, tool }) => ({
        level,
        msg,
        component,
        tool,
      })),
    ).toEqual([
      {
        level: 40,
        msg: 'circuit opened: calls are refused',
        component: 'circuit-breaker',
        tool: 'web_fetch',
      },
      {
        level: 20,
        msg: 'call refused',
        component: 'circuit-breaker',
        tool: 'web_fetch',
      },
      {
        level: 30,
        msg: 'circuit half-open: one trial call',
        component: 'circuit-breaker',
        tool: 'web_fetch',
      },
      {
        level: 30,
        msg: 'circuit closed: calls flow again',
        component: 'circuit-breaker',
        tool: 'web_fetch',
      },
    ]);
    expect(lines[0]).toMatchObject({
      from: 'closed',
      to: 'open',
      reason: 'NETWORK_ERROR',
      calls: 2,
      failures: 2,
      failureRatePct: 100,
    });
    expect(lines[1]).toMatchObject({ state: 'open', retryAfterMs: 1_000 });
    // The breaker never sees arguments and never logs what a tool returned.
    expect(JSON.stringify(lines)).not.toContain('sk-live-123');
  });

  it('26. a throwing state-change listener is logged at error level, and the call still returns', async () => {
    const lines: Line[] = [];
    const logger = pino(
      { level: 'error' },
      {
        write: (line: string) => {
          lines.push(JSON.parse(line) as Line);
        },
      },
    );
    const breaker = createToolBreaker('web_fetch', { logger, minimumCalls: 1 });
    created.push(breaker);
    breaker.onStateChange(() => {
      throw new Error('listener bug');
    });
    expect(await breaker.execute(async () => secretResponse)).toBe(
      secretResponse,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      tool: 'web_fetch',
      error: 'listener bug',
      msg: 'state-change listener threw',
    });
  });

  it('26. writes nothing at all with the default logger', async () => {
    const stdout = vi.spyOn(process.stdout, 'write');
    const stderr = vi.spyOn(process.stderr, 'write');
    const consoleMethods = (
      ['log', 'info', 'warn', 'error', 'debug'] as const
    ).map((method) => vi.spyOn(console, method));
    const breaker = createToolBreaker('web_fetch', {
      minimumCalls: 2,
      resetTimeoutMs: 1_000,
    });
    created.push(breaker);
    const changes: string[] = [];
    breaker.onStateChange(({ to }) => changes.push(to));

    await cycle(breaker);

    expect(changes).toEqual(['open', 'half_open', 'closed']);
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
    for (const method of consoleMethods) expect(method).not.toHaveBeenCalled();
  });
});
