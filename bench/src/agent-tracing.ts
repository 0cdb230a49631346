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

/** Names of the timed tasks of the tracing row. */
export const tracingTask = {
  on: 'Agent.run, agent telemetry on (OpenTelemetry API, no SDK)',
  off: 'Agent.run, agent telemetry: false',
} as const;

const finalText = `The sum is ${addAnswer}.`;

function calculator(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'add',
      description: 'Adds two numbers.',
      input: addSchema(),
      run: (input) => ToolResponse.success(String(add(input))),
    }),
  );
  return registry;
}

/**
 * The cost of the agent's spans and metrics when no SDK is registered (the API's no-op tracer
 * and meter), against the same run with the agent's telemetry turned off: one tool step, then a
 * final answer, with an in-process model. Both sides share one registry with its default
 * telemetry, so the ratio is the agent's alone (row 1 covers the registry's call).
 */
export async function measureAgentTracing(
  options: MeasureOptions,
): Promise<readonly TaskTiming[]> {
  const registry = calculator();
  const run = (telemetry: boolean) => async (): Promise<string> => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: addArguments }] },
      (request) => ({
        text:
          lastToolResult(request) === String(addAnswer)
            ? finalText
            : 'wrong tool result',
      }),
    ]);
    const result = await new Agent({
      model,
      registry,
      ...(telemetry ? {} : { telemetry: false as const }),
    }).run('What is 1 + 2?');
    return `${result.stopReason} ${result.text}`;
  };
  const tasks: BenchTask[] = [
    { name: tracingTask.on, run: run(true) },
    { name: tracingTask.off, run: run(false) },
  ];
  try {
    for (const task of tasks) {
      const got = await task.run();
      if (got !== `completed ${finalText}`) {
        throw new Error(
          `${task.name} ended as "${String(got)}": the bench would time a failure`,
        );
      }
    }
    return await measureTasks(tasks, options);
  } finally {
    registry.shutdown();
  }
}
