import { generateText, stepCountIs, tool as aiTool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { toAISDKTools } from '@candor/ai-sdk';
import { Agent } from '@candor/core';
import { lastToolResult, scriptedModel } from '@candor/core/testing';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import {
  type BenchTask,
  measureTasks,
  type MeasureOptions,
  type TaskTiming,
} from './measure-tasks.ts';
import { add, addAnswer, addArguments, addSchema } from './trivial-tool.ts';

/** Names of the timed tasks of row 2. */
export const agentTask = {
  candor: 'Agent.run + scriptedModel',
  aiSdk: 'AI SDK v6 generateText + MockLanguageModelV3',
  aiSdkCandor: 'the same, tool through toAISDKTools(registry)',
} as const;

const prompt = 'What is 1 + 2?';
const finalText = `The sum is ${addAnswer}.`;

const usage: LanguageModelV3GenerateResult['usage'] = {
  inputTokens: {
    total: 10,
    noCache: 10,
    cacheRead: undefined,
    cacheWrite: undefined,
  },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

const aiToolCallTurn: LanguageModelV3GenerateResult = {
  content: [
    {
      type: 'tool-call',
      toolCallId: 'call_1',
      toolName: 'add',
      input: JSON.stringify(addArguments),
    },
  ],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
};

const aiFinalTurn: LanguageModelV3GenerateResult = {
  content: [{ type: 'text', text: finalText }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
};

/**
 * Row 2: one agent run of one tool step, then a final answer, with an in-process model. Each
 * run gets a fresh model on both sides, since both mock models are consumed turn by turn.
 */
export async function measureAgentRun(
  options: MeasureOptions,
): Promise<readonly TaskTiming[]> {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'add',
      description: 'Adds two numbers.',
      input: addSchema(),
      run: (input) => ToolResponse.success(String(add(input))),
    }),
  );
  const runCandor = async (): Promise<string> => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: addArguments }] },
      (request) =>
        lastToolResult(request) === String(addAnswer)
          ? { text: finalText }
          : { text: `wrong tool result: ${String(lastToolResult(request))}` },
    ]);
    const result = await new Agent({ model, registry }).run(prompt);
    return `${result.stopReason} ${String(result.steps.length)} ${result.text}`;
  };

  const aiTools = {
    add: aiTool({
      description: 'Adds two numbers.',
      inputSchema: addSchema(),
      execute: async (input) => String(add(input)),
    }),
  };
  // The same generateText run, once with a plain tool() and once with the registry's tool: the
  // difference is what the adapter and the registry cost inside the framework.
  const candorTools = toAISDKTools(registry);
  const generate =
    (tools: typeof aiTools | typeof candorTools) =>
    async (): Promise<string> => {
      const result = await generateText({
        model: new MockLanguageModelV3({
          doGenerate: [aiToolCallTurn, aiFinalTurn],
        }),
        tools,
        prompt,
        stopWhen: stepCountIs(2),
      });
      const output: unknown = result.steps[0]?.toolResults[0]?.output;
      const answer =
        typeof output === 'object' && output !== null && 'text' in output
          ? output.text
          : output;
      const text =
        answer === String(addAnswer)
          ? result.text
          : `wrong tool result: ${JSON.stringify(output)}`;
      return `${result.finishReason} ${String(result.steps.length)} ${text}`;
    };

  const checks = [
    {
      task: { name: agentTask.candor, run: runCandor },
      expected: `completed 2 ${finalText}`,
    },
    {
      task: { name: agentTask.aiSdk, run: generate(aiTools) },
      expected: `stop 2 ${finalText}`,
    },
    {
      task: { name: agentTask.aiSdkCandor, run: generate(candorTools) },
      expected: `stop 2 ${finalText}`,
    },
  ];
  const tasks: BenchTask[] = checks.map(({ task }) => task);
  try {
    for (const { task, expected } of checks) {
      const got = await task.run();
      if (got !== expected) {
        throw new Error(
          `${task.name} ended as "${got}", expected "${expected}": the bench would time a failure`,
        );
      }
    }
    return await measureTasks(tasks, options);
  } finally {
    registry.shutdown();
  }
}
