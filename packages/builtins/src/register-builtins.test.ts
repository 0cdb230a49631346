import {
  type AnyToolDefinition,
  isToolDefinition,
  toolSpec,
} from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { temporaryRoot } from './__fixtures__/call-tool.ts';
import * as builtins from './index.ts';
import {
  BUILTIN_TOOL_NAMES,
  createBuiltins,
  registerBuiltins,
} from './register-builtins.ts';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
});

afterEach(async () => {
  await cleanup();
});

/** Shaped like `ToolRegistry.register`: overloads and an options argument. */
class OverloadedSink {
  readonly names: string[] = [];
  register(tool: AnyToolDefinition, options?: { replace?: boolean }): this;
  register(fn: (args: never) => unknown, options?: { name?: string }): this;
  register(tool: AnyToolDefinition | ((args: never) => unknown)): this {
    if (typeof tool !== 'function') this.names.push(tool.name);
    return this;
  }
}

describe('registerBuiltins', () => {
  it('registers every built-in tool in one call', () => {
    const sink = new OverloadedSink();
    const tools = registerBuiltins(sink, { root });
    expect(sink.names).toEqual([...BUILTIN_TOOL_NAMES]);
    expect(tools.every((tool) => isToolDefinition(tool))).toBe(true);
  });

  it('registers only the tools asked for', () => {
    const sink = new OverloadedSink();
    registerBuiltins(sink, { root, include: ['calculator', 'read_file'] });
    expect(sink.names).toEqual(['read_file', 'calculator']);
  });

  it('rejects an unknown tool name clearly', () => {
    expect(() =>
      createBuiltins({ root, include: ['rm_rf' as 'shell'] }),
    ).toThrow(/unknown tool "rm_rf"/);
  });

  it('makes tools that every provider accepts', () => {
    for (const tool of createBuiltins({ root })) {
      const spec = toolSpec(tool);
      expect(spec.name).toBe(tool.name);
      expect(spec.inputSchema).toMatchObject({ type: 'object' });
    }
  });

  it('never describes a tool as a sandbox unless it is isolated', () => {
    for (const tool of createBuiltins({ root })) {
      expect(tool.description).not.toMatch(
        /\bsandboxed\b|\bruns in a sandbox\b/i,
      );
    }
  });

  it('exports the public API from the barrel', () => {
    expect(Object.keys(builtins).sort()).toEqual(
      [
        'BINARY_SNIFF_BYTES',
        'BUILTIN_ANNOTATIONS',
        'BUILTIN_TOOL_NAMES',
        'DEFAULT_ENV_ALLOWLIST',
        'LARGE_RESULT',
        'MAX_EXPRESSION_LENGTH',
        'WorkspaceGuard',
        'calculatorTool',
        'createBuiltins',
        'evaluateExpression',
        'httpFetchTool',
        'listDirTool',
        'probeBubblewrap',
        'readFileTool',
        'registerBuiltins',
        'searchTool',
        'shellTool',
        'writeFileTool',
      ].sort(),
    );
  });
});
