// importMcpTools against frames and results the SDK cannot read, from a real SDK server run as
// its own process over stdio (the misbehaving fixture): each is INTERNAL_ERROR at once, and the
// model's text stays short.
import { ToolRegistry } from '@candor/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, misbehavingStdio } from './__fixtures__/misbehaving-link.ts';
import { type McpImport } from './import-mcp-options.ts';
import { importMcpTools } from './import-mcp-tools.ts';

describe('importMcpTools and unreadable answers', () => {
  let registry: ToolRegistry;
  let link: McpImport;

  beforeAll(async () => {
    registry = new ToolRegistry({ breaker: false });
    link = await importMcpTools({ stdio: misbehavingStdio }, registry);
  }, 30_000);

  afterAll(async () => {
    await link.close();
    registry.shutdown();
  });

  it.each([
    ['null_result', 'a null result'],
    ['string_result', 'a string result'],
  ])(
    '%s: %s is INTERNAL_ERROR at once, not a TIMEOUT after the time limit',
    async (tool) => {
      const started = performance.now();
      const response = await registry.call(tool, {}, { timeoutMs: 20_000 });
      const elapsed = performance.now() - started;
      expect(codeOf(response)).toBe('INTERNAL_ERROR');
      expect(
        response.status === 'error' && response.errorInfo.message,
      ).toContain('not valid JSON-RPC');
      // A backstop only: waiting for the frame would have been the 20 s TIMEOUT.
      expect(elapsed).toBeLessThan(10_000);
      expect(
        (await registry.call('echo', { message: 'still here' })).text,
      ).toBe('still here');
    },
  );

  it('tells the model the first issue of an invalid result and how many more, not the whole dump', async () => {
    const response = await registry.call('bad_block', {});
    expect(codeOf(response)).toBe('INTERNAL_ERROR');
    const message =
      response.status === 'error' ? response.errorInfo.message : '';
    expect(message).toMatch(
      /^The MCP server sent "bad_block" a result that is not a valid CallToolResult: content\.0/,
    );
    expect(message.length).toBeLessThan(500);
  });
});
