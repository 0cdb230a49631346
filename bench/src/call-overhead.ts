import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { tool as langchainTool } from '@langchain/core/tools';
import { RunContext, tool as openaiTool } from '@openai/agents';
import CircuitBreaker from 'opossum';
import {
  type BenchTask,
  measureTasks,
  type MeasureOptions,
  type TaskTiming,
} from './measure-tasks.ts';
import { opossumOptions } from './opossum-options.ts';
import {
  add,
  addAnswer,
  addArguments,
  addAsync,
  addSchema,
} from './trivial-tool.ts';

/** Names of the timed tasks of row 1. */
export const callTask = {
  bare: 'bare function',
  zod: 'zod.parse + function',
  opossum: 'bare opossum fire()',
  candor: 'registry.call (zod, breaker, events)',
  langchain: 'LangChain.js tool().invoke()',
  openai: 'OpenAI Agents JS tool().invoke()',
} as const;

/** Row 1's timings. */
export interface CallOverheadResult {
  readonly timings: readonly TaskTiming[];
}

function expectAnswer(peer: string, got: unknown): void {
  // Each peer returns the answer in its own shape; all that matters is that the work was done.
  const text =
    typeof got === 'object' && got !== null && 'text' in got ? got.text : got;
  if (String(text) !== String(addAnswer)) {
    throw new Error(
      `${peer} answered ${JSON.stringify(got)}, expected ${addAnswer}: the bench would time a failure`,
    );
  }
}

/**
 * Row 1: one call of a trivial zod-validated tool through each layer. Every peer is set up as
 * its docs show, and each is checked to return the right answer before it is timed.
 */
export async function measureCallOverhead(
  options: MeasureOptions,
): Promise<CallOverheadResult> {
  const zodSchema = addSchema();

  const breaker = new CircuitBreaker(addAsync, opossumOptions());

  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'add',
      description: 'Adds two numbers.',
      input: addSchema(),
      run: (input) => ToolResponse.success(String(add(input))),
    }),
  );
  let events = 0;
  registry.on('tool:start', () => {
    events += 1;
  });
  registry.on('tool:end', () => {
    events += 1;
  });

  const langchain = langchainTool(async (input) => String(add(input)), {
    name: 'add',
    description: 'Adds two numbers.',
    schema: addSchema(),
  });

  const openai = openaiTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: addSchema(),
    execute: async (input) => String(add(input)),
  });
  const runContext = new RunContext();
  const openaiInput = JSON.stringify(addArguments);

  const tasks: BenchTask[] = [
    { name: callTask.bare, run: () => addAsync(addArguments) },
    { name: callTask.zod, run: async () => add(zodSchema.parse(addArguments)) },
    { name: callTask.opossum, run: () => breaker.fire(addArguments) },
    { name: callTask.candor, run: () => registry.call('add', addArguments) },
    { name: callTask.langchain, run: () => langchain.invoke(addArguments) },
    {
      name: callTask.openai,
      run: () => openai.invoke(runContext, openaiInput),
    },
  ];
  try {
    for (const task of tasks) expectAnswer(task.name, await task.run());
    const before = events;
    const response = await registry.call('add', addArguments);
    if (response.status !== 'success' || events !== before + 2) {
      throw new Error(
        `registry.call did not run with events on: status ${response.status}, ${events - before} events`,
      );
    }
    return { timings: await measureTasks(tasks, options) };
  } finally {
    registry.shutdown();
    breaker.shutdown();
  }
}
