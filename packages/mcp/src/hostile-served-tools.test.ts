// Hostile tools behind serveRegistry: whatever a tool returns or throws (BigInt, cycles, Proxies
// whose getters throw, a getter on the response itself), the official client gets a valid
// CallToolResult whose isError matches the outcome and whose structuredContent validates against
// the advertised output schema.
import { everyTrapThrows } from '@candor/hostile-fixtures';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { Client } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linkInMemory } from './__fixtures__/link-in-memory.ts';
import { createRegistryServer } from './create-registry-server.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// Every trap throws: `get` and `ownKeys`, and whichever else a reader reaches for.
const hostile = everyTrapThrows('hostile trap').proxy;
const cyclic: Record<string, unknown> = { name: 'loop' };
cyclic['self'] = cyclic;

const returns: Record<string, () => unknown> = {
  bigint: () => ToolResponse.success('big', { data: { n: 10n } }),
  cyclic: () => ToolResponse.success('loop', { data: cyclic }),
  proxyData: () => ToolResponse.success('proxy', { data: hostile }),
  proxyResult: () => hostile,
  getterResult: () => ({
    status: 'success',
    get text(): string {
      throw new Error('text getter');
    },
  }),
  throwsProxy: () => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the point of the test
    throw hostile;
  },
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the point of the test
  rejectsBigInt: () => Promise.reject(10n),
};

async function connect(): Promise<Client> {
  const registry = new ToolRegistry({ breaker: false });
  for (const [name, run] of Object.entries(returns)) {
    registry.register(
      defineTool({
        name,
        description: `Returns ${name}`,
        input: z.object({}),
        run: run as () => ToolResponse,
      }),
    );
  }
  const server = createRegistryServer(registry);
  const client = new Client({ name: 'test', version: '1' });
  const close = await linkInMemory(server, client);
  cleanups.push(async () => {
    await close();
    registry.shutdown();
  });
  return client;
}

describe('serveRegistry with hostile tools', () => {
  it.each(Object.keys(returns))(
    'answers %s with a valid result that matches the output schema',
    async (name) => {
      const client = await connect();
      // Listing makes the SDK client validate structuredContent against the outputSchema.
      const { tools } = await client.listTools();
      const schema = tools.find((tool) => tool.name === name)?.outputSchema;
      const result = await client.callTool({ name, arguments: {} });
      const validate = new AjvJsonSchemaValidator().getValidator(
        (schema ?? {}) as never,
      );
      expect(validate(result.structuredContent).valid).toBe(true);
      const envelope = result.structuredContent as { status: string };
      expect(result.isError).toBe(envelope.status === 'error');
      expect(result.content).toHaveLength(1);
      // Said in words, never as a stack trace.
      expect(JSON.stringify(result)).not.toMatch(/\\n\s+at /);
      // None of these is a success, whatever the tool claimed.
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        status: 'error',
        retryable: false,
      });
    },
  );
});
