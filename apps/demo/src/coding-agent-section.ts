import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellTool, writeFileTool } from '@candor/builtins';
import { Agent, type ChatRequest } from '@candor/core';
import {
  lastToolResult,
  scriptedModel,
  type ScriptedTurn,
} from '@candor/core/testing';
import { ToolRegistry } from '@candor/registry';
import { type Output } from './output.ts';

const BUGGY = 'export function sum(a, b) {\n  return a - b;\n}\n';
const TEST = [
  "import assert from 'node:assert/strict';",
  "import { sum } from './sum.mjs';",
  'assert.equal(sum(2, 3), 5);',
  "console.log('sum.test.mjs: 1 passed');",
  '',
].join('\n');

/** What the scripted model asks for, given what it last received. Exported for the test. */
export function codingModel(node: string) {
  const runTests: ScriptedTurn = {
    toolCalls: [
      { name: 'shell', arguments: { command: [node, 'sum.test.mjs'] } },
    ],
  };
  return scriptedModel([
    { text: 'Running the tests first.', ...runTests },
    (request: ChatRequest) => {
      // The model reads the assertion from what it was sent: actual !== expected.
      const received = lastToolResult(request) ?? '';
      const failed = received.startsWith('[EXECUTION_ERROR]');
      const assertion = /(-?\d+) !== (-?\d+)/.exec(received);
      if (!failed || assertion === null) {
        return { text: 'I cannot see why the test fails; stopping here.' };
      }
      return {
        text: `sum(2, 3) gave ${assertion[1]}, expected ${assertion[2]}: sum subtracts. Fixing sum.mjs.`,
        toolCalls: [
          {
            name: 'write_file',
            arguments: {
              path: 'sum.mjs',
              content: 'export function sum(a, b) {\n  return a + b;\n}\n',
            },
          },
        ],
      };
    },
    (request: ChatRequest) =>
      lastToolResult(request)?.startsWith('[') === false
        ? { text: 'Rerunning the tests.', ...runTests }
        : { text: 'The fix was not written; stopping here.' },
    (request: ChatRequest) =>
      (lastToolResult(request) ?? '').includes('1 passed')
        ? { text: 'The test passes now: sum adds.' }
        : { text: 'The test still fails.' },
  ]);
}

/**
 * A coding agent, offline: the model runs a failing test with `shell`, reads the assertion from
 * the tool result, fixes the file with `write_file`, reruns the test, and the run completes.
 * Each step prints exactly what the model received.
 */
export async function codingAgentSection(output: Output): Promise<string> {
  output.section(
    'A coding agent fixes a failing test (scripted model, real shell and files)',
  );
  const workspace = await mkdtemp(join(tmpdir(), 'candor-coding-'));
  const registry = new ToolRegistry();
  try {
    await writeFile(join(workspace, 'sum.mjs'), BUGGY);
    await writeFile(join(workspace, 'sum.test.mjs'), TEST);
    registry.register(shellTool({ root: workspace, timeoutMs: 20_000 }));
    registry.register(writeFileTool({ root: workspace }));
    output.note('user: The test in sum.test.mjs fails. Fix it.');
    const agent = new Agent({
      model: codingModel(process.execPath),
      registry,
      maxSteps: 6,
    });
    let text = '';
    for await (const event of agent.stream(
      'The test in sum.test.mjs fails. Fix it.',
    )) {
      if (event.type === 'text-delta') text += event.text;
      // The model's words come before its tool calls, so they are shown when a call starts.
      if (event.type === 'tool-start' || event.type === 'step-end') {
        output.modelSaid(event.step, text.trim());
        text = '';
      }
      if (event.type === 'tool-end')
        output.modelReceived(
          event.step,
          event.toolName,
          event.sentToModel.content,
          event.outcome,
        );
      if (event.type === 'done') output.done(event.result.stopReason);
    }
    return await readFile(join(workspace, 'sum.mjs'), 'utf8');
  } finally {
    registry.shutdown();
    await rm(workspace, { recursive: true, force: true });
  }
}
