import { Agent, type ChatModel, type ChatRequest } from '@candor/core';
import { lastToolResult, scriptedModel } from '@candor/core/testing';
import { type ToolRegistry } from '@candor/registry';
import { type Output } from './output.ts';

export const QUESTION = 'What is 2 ** 40 * 1000, and what is 17 × 3?';

function calls(expression: string) {
  return { toolCalls: [{ name: 'calculator', arguments: { expression } }] };
}

/**
 * A scripted model that reacts to what it receives: it says a PARTIAL result is approximate, and
 * it corrects its input after an ERROR.
 */
export function demoModel(): ChatModel {
  return scriptedModel([
    calls('2 ** 40 * 1000'),
    (request: ChatRequest) =>
      lastToolResult(request)?.startsWith('[INCOMPLETE RESULT') === true
        ? {
            text: 'The first result is approximate (shown in scientific notation). ',
            ...calls('17 × 3'),
          }
        : { text: 'The first result is exact. ', ...calls('17 × 3') },
    (request: ChatRequest) =>
      lastToolResult(request)?.startsWith('[INVALID_FORMAT]') === true
        ? {
            text: 'My input was malformed; correcting it. ',
            ...calls('17 * 3'),
          }
        : { text: 'Done.' },
    (request: ChatRequest) => ({
      text: `2 ** 40 * 1000 is about 1.1e15, and 17 × 3 = ${lastToolResult(request) ?? '?'}.`,
    }),
  ]);
}

/** An agent run, showing what the model received after each tool call. */
export async function agentSection(
  output: Output,
  options: { registry: ToolRegistry; model: ChatModel; live: boolean },
): Promise<void> {
  output.section(
    options.live
      ? `An agent run with ${options.model.provider} model ${options.model.model}`
      : 'An agent run with a scripted model (set CANDOR_MODEL to use a real one)',
  );
  output.note(`user: ${QUESTION}`);
  const agent = new Agent({
    model: options.model,
    registry: options.registry,
    instructions:
      'Use the calculator for arithmetic. Say when a result is approximate.',
    maxSteps: 6,
  });
  let text = '';
  // The model's words come before its tool calls, so they are shown as soon as a call starts.
  const flush = (step: number): void => {
    output.modelSaid(step, text.trim());
    text = '';
  };
  for await (const event of agent.stream(QUESTION)) {
    if (event.type === 'text-delta') text += event.text;
    if (event.type === 'tool-start') flush(event.step);
    if (event.type === 'tool-end')
      output.modelReceived(
        event.step,
        event.toolName,
        event.sentToModel.content,
        event.outcome,
      );
    if (event.type === 'step-end') flush(event.step);
    if (event.type === 'done') {
      output.done(event.result.stopReason);
      if (event.result.modelError)
        output.note(`model error: ${event.result.modelError.message}`);
    }
  }
}
