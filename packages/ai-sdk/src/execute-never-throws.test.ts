import { everyTrapThrows } from '@candor/hostile-fixtures';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toAISDKTools } from './index.ts';

type Execute = (input: unknown, options: unknown) => Promise<unknown>;

function executeOfOneTool(): Execute {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'ping',
      description: 'Answers pong',
      input: z.object({}),
      run: () => ToolResponse.success('pong'),
    }),
  );
  const tools = toAISDKTools(registry) as unknown as Record<
    string,
    { execute: Execute }
  >;
  const ping = tools['ping'];
  if (ping === undefined) throw new Error('no ping tool');
  return ping.execute;
}

describe('toAISDKTools: execute never throws (README), also with options it did not expect', () => {
  // execute hands the SDK's options to adapterTools' `call`, which reads `toolCallId` and
  // `abortSignal` itself: a missing options object or a throwing getter must leave them out, never
  // throw from execute (the checks themselves are tested in @candor/tools' adapter-tools.test.ts).
  it('resolves when the options object is missing', async () => {
    const execute = executeOfOneTool();
    await expect(execute({}, undefined)).resolves.toMatchObject({
      status: 'success',
    });
  });

  it('resolves when reading toolCallId throws', async () => {
    const execute = executeOfOneTool();
    const options = {
      messages: [],
      get toolCallId(): string {
        throw new Error('hostile getter');
      },
    };
    await expect(execute({}, options)).resolves.toHaveProperty('status');
  });

  it('resolves to a cancelled error when the signal was aborted with a hostile reason', async () => {
    const execute = executeOfOneTool();
    const reason = everyTrapThrows('hostile reason').proxy;
    await expect(
      execute(
        {},
        {
          toolCallId: 'c1',
          messages: [],
          abortSignal: AbortSignal.abort(reason),
        },
      ),
    ).resolves.toMatchObject({
      status: 'error',
      errorInfo: { code: 'EXECUTION_ERROR', cancelled: true },
    });
  });
});
