import { everyTrapThrows } from '@candor/hostile-fixtures';
import { describe, expect, it } from 'vitest';
import { adapterTools } from './adapter-tools.ts';
import {
  type ToolExecutor,
  type ToolExecutorCallOptions,
} from './tool-executor.ts';
import { outcomeOf } from './outcome-of.ts';
import { ToolResponse } from './tool-response.ts';

function executor(
  calls: [string, unknown, ToolExecutorCallOptions | undefined][],
) {
  const spec = (name: string) => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
  });
  return {
    specs: () => [spec('a'), spec('b')],
    call: (name, args, options) => {
      calls.push([name, args, options]);
      return Promise.resolve(ToolResponse.success(name));
    },
  } satisfies ToolExecutor;
}

describe('adapterTools', () => {
  it('binds every tool, or only the named ones, and names the caller for an unknown name', () => {
    const tools = executor([]);
    const names = (only?: string[]) =>
      adapterTools(tools, { caller: 'toX', ...(only ? { only } : {}) }).map(
        ({ spec }) => spec.name,
      );
    expect(names()).toEqual(['a', 'b']);
    expect(names(['b'])).toEqual(['b']);
    expect(() => names(['b', 'nope', 'zz'])).toThrow(
      'toX: no registered tool named "nope", "zz"',
    );
  });

  it('calls through the executor, leaving out an id or a signal it was not given', async () => {
    const calls: [string, unknown, ToolExecutorCallOptions | undefined][] = [];
    const [a] = adapterTools(executor(calls), { caller: 'toX' });
    const signal = new AbortController().signal;
    await a?.call({ x: 1 }, { callId: 'c1', signal });
    await a?.call({}, { callId: undefined, signal: undefined });
    expect(calls).toEqual([
      ['a', { x: 1 }, { callId: 'c1', signal }],
      ['a', {}, {}],
    ]);
  });

  describe('reads the id and the signal defensively: call never throws or rejects', () => {
    /** A Proxy whose every trap throws, whatever the trap. */
    const hostileProxy = everyTrapThrows('hostile trap').proxy;
    const throwingGetters = {
      get callId(): never {
        throw new Error('hostile callId');
      },
      get signal(): never {
        throw new Error('hostile signal');
      },
    };
    const signal = new AbortController().signal;

    it.each([
      ['no context', undefined],
      ['null', null],
      ['a string', 'c1'],
      ['throwing getters', throwingGetters],
      ['a Proxy that throws on every trap', hostileProxy],
      [
        'a number id and a signal that is not an AbortSignal',
        {
          callId: 7,
          signal: { aborted: false, reason: undefined },
        },
      ],
      [
        'an empty id and Proxies as the values',
        {
          callId: '',
          signal: hostileProxy,
        },
      ],
      [
        'a Proxy id and a Proxy signal',
        { callId: hostileProxy, signal: hostileProxy },
      ],
    ])('with %s, calls without an id or a signal', async (_, context) => {
      const calls: [string, unknown, ToolExecutorCallOptions | undefined][] =
        [];
      const [a] = adapterTools(executor(calls), { caller: 'toX' });
      if (a === undefined) throw new Error('no tool');
      await expect(a.call({}, context)).resolves.toMatchObject({
        status: 'success',
      });
      expect(calls).toEqual([['a', {}, {}]]);
      expect(Object.keys(calls[0]?.[2] ?? { none: true })).toEqual([]);
    });

    it('keeps the one value that reads well when the other throws', async () => {
      const calls: [string, unknown, ToolExecutorCallOptions | undefined][] =
        [];
      const [a] = adapterTools(executor(calls), { caller: 'toX' });
      await a?.call(
        {},
        {
          get callId(): never {
            throw new Error('hostile callId');
          },
          signal,
        },
      );
      await a?.call({}, { callId: 'c2', signal: hostileProxy });
      expect(calls).toEqual([
        ['a', {}, { signal }],
        ['a', {}, { callId: 'c2' }],
      ]);
    });

    it("reads the framework's own names through the adapter's readers, which may throw", async () => {
      const calls: [string, unknown, ToolExecutorCallOptions | undefined][] =
        [];
      const [a] = adapterTools(executor(calls), {
        caller: 'toX',
        callIdOf: (options) => (options as { toolCallId?: unknown }).toolCallId,
        signalOf: (options) =>
          (options as { abortSignal?: unknown }).abortSignal,
      });
      if (a === undefined) throw new Error('no tool');
      await a.call({}, { toolCallId: 'c3', abortSignal: signal, callId: 'no' });
      await expect(a.call({}, null)).resolves.toHaveProperty('status');
      await expect(a.call({}, hostileProxy)).resolves.toHaveProperty('status');
      expect(calls).toEqual([
        ['a', {}, { callId: 'c3', signal }],
        ['a', {}, {}],
        ['a', {}, {}],
      ]);
    });
  });

  it('asks the approval question with the tool name, and passes a fixed answer as it is', async () => {
    const asked: unknown[] = [];
    const [a, b] = adapterTools(executor([]), {
      caller: 'toX',
      needsApproval: (name, input) => {
        asked.push([name, input]);
        return Promise.resolve(name === 'b');
      },
    });
    const question = b?.needsApproval;
    expect(typeof question).toBe('function');
    if (typeof question !== 'function' || a?.needsApproval === undefined)
      throw new Error('no approval question');
    expect(await question({ y: 2 })).toBe(true);
    expect(asked).toEqual([['b', { y: 2 }]]);
    const fixed = adapterTools(executor([]), {
      caller: 'toX',
      needsApproval: false,
    });
    expect(fixed.map((tool) => tool.needsApproval)).toEqual([false, false]);
    expect(adapterTools(executor([]), { caller: 'toX' })[0]).not.toHaveProperty(
      'needsApproval',
    );
  });

  describe("asks the framework's approval only for what the executor's check takes", () => {
    type Approve = (
      request: { toolName: string; params: unknown },
      gate: (request: unknown) => unknown,
    ) => unknown;
    // An executor whose check takes `{ n: <number> }` (coerced from a string), shown as
    // validated and censored, and whose call asks a per-call `approve` as a registry does.
    function checkingExecutor(
      check: ToolExecutor['check'] | null = (_, args) => {
        const n = Number((args as { n?: unknown }).n);
        return Promise.resolve(
          Number.isNaN(n)
            ? { ok: false, response: ToolResponse.error('INVALID_PARAM', 'n') }
            : { ok: true, input: { n }, params: { n, token: '[REDACTED]' } },
        );
      },
    ) {
      const runs: unknown[] = [];
      const spec = { name: 'a', description: 'a', inputSchema: {} };
      const tools: ToolExecutor = {
        specs: () => [spec],
        call: async (name, args, options) => {
          const approve = (options as { approve?: Approve } | undefined)
            ?.approve;
          if (approve !== undefined) {
            const decision = await approve(
              { toolName: name, params: args },
              () => true,
            );
            if (decision !== true) return ToolResponse.denied('not approved');
          }
          runs.push(args);
          return ToolResponse.success('ran');
        },
        ...(check === null ? {} : { check }),
      };
      return { tools, runs };
    }

    it('shows the validated, censored arguments, and asks nothing about a call the check refuses', async () => {
      const { tools, runs } = checkingExecutor();
      const asked: unknown[] = [];
      const [a] = adapterTools(tools, {
        caller: 'toX',
        needsApproval: (name, input) => {
          asked.push([name, input]);
          return true;
        },
      });
      if (a?.approval === undefined || typeof a.needsApproval !== 'function')
        throw new Error('no approval question');
      expect(await a.approval({ n: '5', token: 'abc' })).toEqual({
        params: { n: 5, token: '[REDACTED]' },
      });
      expect(await a.needsApproval({ n: 'five' })).toBe(false);
      expect(await a.approval({ n: 'five' })).toBeUndefined();
      expect(asked).toEqual([['a', { n: 5, token: '[REDACTED]' }]]);
      // Taken by the check: asked by the framework, so a plain call.
      expect((await a.call({ n: '5' })).status).toBe('success');
      // Refused by the check, so asked by nobody: this executor takes it anyway, and the gate
      // refuses it, as approval was wanted.
      expect(outcomeOf(await a.call({ n: 'five' }))).toBe('denied');
      expect(runs).toEqual([{ n: '5' }]);
    });

    it('asks about every call, censored here, for an executor without a check, and runs it as approved', async () => {
      const { tools, runs } = checkingExecutor(null);
      const [a] = adapterTools(tools, {
        caller: 'toX',
        needsApproval: true,
        redact: { extraKeys: ['pin'] },
      });
      expect(await a?.approval?.({ n: 'five', pin: '1234' })).toEqual({
        params: { n: 'five', pin: '[REDACTED]' },
      });
      expect((await a?.call({ n: 'five' }))?.status).toBe('success');
      expect(runs).toEqual([{ n: 'five' }]);
    });

    it.each([
      ['rejects', () => Promise.reject(new Error('broken check'))],
      [
        'throws',
        () => {
          throw new Error('broken check');
        },
      ],
      ['answers something else', () => Promise.resolve({ ok: 'yes' })],
    ])(
      'with a check that %s: asks, and never runs a call unapproved',
      async (_, check) => {
        const { tools, runs } = checkingExecutor(
          check as unknown as ToolExecutor['check'],
        );
        const [a] = adapterTools(tools, {
          caller: 'toX',
          needsApproval: true,
        });
        expect(await a?.approval?.({ n: 1, password: 'p' })).toEqual({
          params: { n: 1, password: '[REDACTED]' },
        });
        const response = await a?.call({ n: 1 });
        expect(response && outcomeOf(response)).toBe('denied');
        expect(runs).toEqual([]);
      },
    );

    it("leaves the approval out where nobody is asked, and calls without the executor's check", async () => {
      let checked = 0;
      const { tools } = checkingExecutor(() => {
        checked += 1;
        return Promise.resolve({ ok: true, input: {}, params: {} });
      });
      for (const needsApproval of [undefined, false] as const) {
        const [a] = adapterTools(tools, {
          caller: 'toX',
          ...(needsApproval === undefined ? {} : { needsApproval }),
        });
        expect(a).not.toHaveProperty('approval');
        expect((await a?.call({ n: 1 }))?.status).toBe('success');
      }
      expect(checked).toBe(0);
    });
  });
});
