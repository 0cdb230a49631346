import { describe, expect, it } from 'vitest';
import { adapterTools } from './adapter-tools.ts';
import {
  type ToolExecutor,
  type ToolExecutorCallOptions,
} from './tool-executor.ts';
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
});
