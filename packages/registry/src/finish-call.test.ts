import { defineTool, ToolResponse } from '@candor/tools';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { echo, setup } from './__fixtures__/echo-registry.ts';

describe('7. timing and context', () => {
  it('sets stats.timeMs and context with toolName, callId and censored params', async () => {
    const { registry } = setup();
    registry.register(function login(args: { user: string; password: string }) {
      return `welcome ${args.user}`;
    });
    const response = await registry.call(
      'login',
      { user: 'ada', password: 'pw-secret-1' },
      { callId: 'call-7' },
    );
    expect(response.stats.timeMs).toBeGreaterThanOrEqual(0);
    expect(response.context).toEqual({
      toolName: 'login',
      callId: 'call-7',
      params: { user: 'ada', password: '[REDACTED]' },
    });
  });

  it('generates a unique callId when none is given', async () => {
    const { registry } = setup();
    registry.register(echo);
    const ids = new Set<unknown>();
    for (let i = 0; i < 100; i++) {
      const response = await registry.call('echo', { message: 'x' });
      expect(response.context?.callId).toMatch(/^call_[0-9a-f]{8}_[0-9a-z]+$/);
      ids.add(response.context?.callId);
    }
    expect(ids.size).toBe(100);
  });
});

describe('8. events and logging', () => {
  it('emits tool:start and exactly one tool:end with outcome, code, duration and result length', async () => {
    const { registry, ends } = setup();
    const starts: unknown[] = [];
    registry.on('tool:start', (event) => starts.push(event));
    registry.register(echo);
    await registry.call('echo', { message: 'abc', times: 2 }, { callId: 'c1' });
    await registry.call('echo', { message: 1 }, { callId: 'c2' });
    expect(starts).toEqual([
      { toolName: 'echo', callId: 'c1', params: { message: 'abc', times: 2 } },
      { toolName: 'echo', callId: 'c2', params: { message: 1 } },
    ]);
    expect(ends).toHaveLength(2);
    expect(ends[0]).toMatchObject({
      toolName: 'echo',
      callId: 'c1',
      outcome: 'success',
      resultLength: 6,
      stage: 'run',
    });
    expect(ends[0]?.code).toBeUndefined();
    expect(ends[1]).toMatchObject({
      outcome: 'error',
      code: 'INVALID_PARAM',
      stage: 'arguments',
    });
    expect(ends[1]?.resultLength).toBe(ends[1]?.response.text.length);
    expect(ends[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('measures the result text, never the arguments', async () => {
    const { registry, ends } = setup();
    registry.register(function short() {
      return 'ok';
    });
    await registry.call('short', { big: 'x'.repeat(10_000) });
    expect(ends[0]?.resultLength).toBe(2);
  });

  it('survives listeners that throw, and logs them', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(line) },
    );
    const { registry } = setup({ logger });
    registry.on('tool:start', () => {
      throw new Error('listener bug');
    });
    registry.on('tool:end', () => {
      throw new Error('listener bug');
    });
    registry.register(echo);
    const response = await registry.call('echo', { message: 'fine' });
    expect(response.status).toBe('success');
    expect(
      lines.filter((line) => line.includes('registry event listener threw')),
    ).toHaveLength(2);
  });

  it('emits tool:registered for each register(), saying whether it replaced a tool', () => {
    const { registry } = setup();
    const seen: unknown[] = [];
    const off = registry.on('tool:registered', (event) => seen.push(event));
    registry.register(echo);
    registry.register(echo, { replace: true });
    expect(() => registry.register(echo)).toThrow(/already registered/);
    off();
    registry.register(function later() {
      return 'x';
    });
    expect(seen).toEqual([
      { toolName: 'echo', replaced: false },
      { toolName: 'echo', replaced: true },
    ]);
  });

  it('registers the tool even when a tool:registered listener throws', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(line) },
    );
    const { registry } = setup({ logger });
    registry.on('tool:registered', () => {
      throw new Error('listener bug');
    });
    registry.register(echo);
    expect((await registry.call('echo', { message: 'ok' })).status).toBe(
      'success',
    );
    expect(
      lines.filter((line) => line.includes('registry event listener threw')),
    ).toHaveLength(1);
  });

  it('writes one log line per call, with secrets censored at any depth', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(line) },
    );
    const { registry } = setup({ logger });
    registry.register(function connect() {
      return 'connected';
    });
    await registry.call('connect', {
      host: 'db',
      auth: {
        Authorization: 'Bearer abc',
        nested: [{ api_key: 'k-123', private_key: 'pk' }],
      },
      headers: { cookie: 'sid=1', 'X-Access-Token': 't0k' },
      maxTokens: 100,
    });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({
      component: 'tool-registry',
      tool: 'connect',
      outcome: 'success',
      stage: 'run',
      msg: 'tool call finished',
    });
    expect(line['params']).toEqual({
      host: 'db',
      auth: '[REDACTED]',
      headers: { cookie: '[REDACTED]', 'X-Access-Token': '[REDACTED]' },
      maxTokens: 100,
    });
    const deep = await registry.call('connect', {
      a: { b: { c: { password: 'deep-pass' } } },
    });
    expect(deep.context?.params).toEqual({
      a: { b: { c: { password: '[REDACTED]' } } },
    });
  });

  it('scrubs secret values from model-visible messages', async () => {
    const { registry } = setup();
    registry.register(function leaky(args: { token: string }) {
      throw new Error(`upstream rejected token ${args.token}`);
    });
    const response = await registry.call('leaky', '{"token":"tok-9f8e7d"}');
    expect(response.text).toBe('upstream rejected token [REDACTED]');
    expect(response.status === 'error' && response.errorInfo.message).toBe(
      'upstream rejected token [REDACTED]',
    );
  });

  it('censors a secret the tool returns in its data, everywhere the response goes', async () => {
    const { registry } = setup();
    registry.register(
      defineTool({
        name: 'login',
        description: 'Returns a session',
        input: z.object({}),
        run: () =>
          ToolResponse.success('session tok-5e55i0n ready', {
            data: {
              user: 'ada',
              sessionToken: 'tok-5e55i0n',
              log: ['tok-5e55i0n'],
            },
          }),
      }),
    );
    const ended: unknown[] = [];
    registry.on('tool:end', (event) => ended.push(event));
    const response = await registry.call('login', {});
    expect(response.text).toBe('session [REDACTED] ready');
    expect(response.data).toEqual({
      user: 'ada',
      sessionToken: '[REDACTED]',
      log: ['[REDACTED]'],
    });
    expect(JSON.stringify(ended)).not.toContain('tok-5e55i0n');
  });

  it('censors secrets in keys the wire schema does not name, at the top and in errorInfo', async () => {
    const { registry } = setup();
    // The wire schema keeps unknown keys (a newer producer's fields), so they leave the seam:
    // censored like the named ones.
    const extra = {
      apiKey: 'sk-top-7d1e',
      debug: { password: 'pw-nested-42', echo: 'arg tok-arg-9c3b was used' },
      trace: ['tok-arg-9c3b'],
    };
    registry.register(
      defineTool({
        name: 'extras',
        description: 'Returns fields beyond the named ones',
        input: z.looseObject({}),
        run: () => ({
          ...ToolResponse.success('ok'),
          ...extra,
        }),
      }),
    );
    registry.register(
      defineTool({
        name: 'extra_error',
        description: 'Fails with fields beyond the named ones in errorInfo',
        input: z.looseObject({}),
        run: () => {
          const failed = ToolResponse.error('EXECUTION_ERROR', 'it failed');
          return {
            ...failed,
            errorInfo: { ...failed.errorInfo, ...extra },
            ...extra,
          };
        },
      }),
    );
    const ended: unknown[] = [];
    registry.on('tool:end', (event) => ended.push(event));
    const ok = await registry.call('extras', { token: 'tok-arg-9c3b' });
    expect(ok.status).toBe('success');
    expect(ok).toMatchObject({
      apiKey: '[REDACTED]',
      debug: { password: '[REDACTED]', echo: 'arg [REDACTED] was used' },
      trace: ['[REDACTED]'],
    });
    const failed = await registry.call('extra_error', {
      token: 'tok-arg-9c3b',
    });
    expect(failed.status === 'error' && failed.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      apiKey: '[REDACTED]',
      debug: { password: '[REDACTED]', echo: 'arg [REDACTED] was used' },
    });
    const everything = JSON.stringify([ok, failed, ended]);
    for (const secret of ['sk-top-7d1e', 'pw-nested-42', 'tok-arg-9c3b']) {
      expect(everything).not.toContain(secret);
    }
    // Still the wire form after a JSON round trip.
    for (const response of [ok, failed]) {
      expect(
        ToolResponse.safeParse(JSON.parse(JSON.stringify(response))).success,
      ).toBe(true);
    }
  });

  it('writes nothing by default', async () => {
    const write = vi.spyOn(process.stdout, 'write');
    const { registry } = setup();
    registry.register(echo);
    await registry.call('echo', { message: 'quiet' });
    expect(write).not.toHaveBeenCalled();
    write.mockRestore();
  });
});
