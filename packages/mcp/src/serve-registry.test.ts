// The official SDK client against serveRegistry: isError, structuredContent that matches the
// advertised output schema, list_changed when a breaker opens, bearer tokens, loopback.
import { fileURLToPath } from 'node:url';
import { type ToolEndEvent, ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import {
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outcomeRegistry } from './__fixtures__/outcome-registry.ts';
import { serveOverHttp } from './__fixtures__/serve-over-http.ts';
import { type RegistryService } from './serve-options.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function serve(
  registry: ToolRegistry,
  options: { bearerToken?: string; hideOpenCircuits?: boolean } = {},
): Promise<RegistryService & { url: URL }> {
  return serveOverHttp(registry, options, cleanups);
}

/** Calls `hang`, cancels the request once `started` settles; what the call settled to. */
async function cancelHang(
  client: Client,
  started: Promise<void>,
): Promise<unknown> {
  const controller = new AbortController();
  const pending = client
    .callTool({ name: 'hang', arguments: {} }, { signal: controller.signal })
    .catch((error: unknown) => error);
  await started;
  controller.abort();
  return pending;
}

async function connect(
  url: URL,
  options: {
    token?: string;
    onToolsChanged?: () => void;
    modern?: boolean;
  } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'test', version: '1' },
    {
      ...(options.modern === true
        ? { versionNegotiation: { mode: 'auto' as const } }
        : {}),
      ...(options.onToolsChanged === undefined
        ? {}
        : {
            listChanged: {
              tools: {
                autoRefresh: false,
                debounceMs: 0,
                onChanged: options.onToolsChanged,
              },
            },
          }),
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      ...(options.token === undefined
        ? {}
        : {
            requestInit: {
              headers: { authorization: `Bearer ${options.token}` },
            },
          }),
    }),
  );
  cleanups.push(() => client.close());
  return client;
}

describe('serveRegistry over Streamable HTTP, seen by the official SDK client', () => {
  it('binds to 127.0.0.1 by default', async () => {
    const service = await serve(outcomeRegistry());
    expect(service.url.hostname).toBe('127.0.0.1');
    expect(service.url.pathname).toBe('/mcp');
  });

  it('lists tools with their input schema, the outcome output schema and idempotentHint', async () => {
    const client = await connect((await serve(outcomeRegistry())).url);
    const { tools } = await client.listTools();
    const add = tools.find((tool) => tool.name === 'add');
    expect(add?.inputSchema).toMatchObject({
      type: 'object',
      required: ['a', 'b'],
    });
    expect(add?.outputSchema).toMatchObject({
      type: 'object',
      required: ['status'],
    });
    expect(add?.annotations?.idempotentHint).toBe(true);
    expect(
      tools.find((tool) => tool.name === 'rounded')?.annotations
        ?.idempotentHint,
    ).toBe(false);
  });

  it('sends isError, the model text and structuredContent that matches the output schema', async () => {
    const client = await connect((await serve(outcomeRegistry())).url);
    const { tools } = await client.listTools();
    const validate = new AjvJsonSchemaValidator().getValidator(
      (tools.find((tool) => tool.name === 'fail')?.outputSchema ?? {}) as never,
    );
    const failed = await client.callTool({
      name: 'fail',
      arguments: { code: 'NOT_FOUND' },
    });
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([
      {
        type: 'text',
        text: '[NOT_FOUND] failed with NOT_FOUND\nRetrying the same call will not help: change the arguments or the approach.',
      },
    ]);
    expect(failed.structuredContent).toMatchObject({
      status: 'error',
      code: 'NOT_FOUND',
      retryable: false,
      data: { attempt: 1 },
    });
    expect(validate(failed.structuredContent).valid).toBe(true);

    const ok = await client.callTool({
      name: 'add',
      arguments: { a: 1, b: 2 },
    });
    expect(ok.isError).toBe(false);
    expect(ok.structuredContent).toEqual({
      status: 'success',
      data: { sum: 3 },
    });
    expect(validate(ok.structuredContent).valid).toBe(true);

    const partial = await client.callTool({ name: 'rounded', arguments: {} });
    expect(partial.isError).toBe(false);
    expect(partial.content[0]).toMatchObject({
      text: expect.stringContaining('[INCOMPLETE RESULT: rounded]') as unknown,
    });

    const denied = await client.callTool({ name: 'guarded', arguments: {} });
    expect(denied.isError).toBe(false);
    expect(denied.content[0]).toMatchObject({
      text: expect.stringContaining(
        '[DENIED] This call was NOT executed.',
      ) as unknown,
    });
    expect(denied.structuredContent).toMatchObject({
      status: 'error',
      code: 'ACCESS_DENIED',
      denied: true,
    });
  });

  it("advertises a tool's own output schema inside the envelope, and the SDK client validates against it", async () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const node: z.ZodType<Node> = z.object({
      name: z.string(),
      get children() {
        return z.array(node);
      },
    });
    const registry = new ToolRegistry({ breaker: false });
    registry.register(
      defineTool({
        name: 'tree',
        description: 'A recursive output schema, to test references',
        input: z.object({ lie: z.boolean() }),
        output: node,
        run: ({ lie }) =>
          ToolResponse.success('a tree', {
            data: lie
              ? { name: 'root', children: 'none' }
              : { name: 'root', children: [{ name: 'leaf', children: [] }] },
          }),
      }),
    );
    const client = await connect((await serve(registry)).url);
    const { tools } = await client.listTools();
    const schema = tools[0]?.outputSchema ?? {};
    expect(schema).toMatchObject({
      type: 'object',
      required: ['status'],
      $defs: { output: { type: 'object' } },
    });
    // callTool validates structuredContent against the advertised schema, or throws.
    const ok = await client.callTool({
      name: 'tree',
      arguments: { lie: false },
    });
    expect(ok.structuredContent).toMatchObject({
      status: 'success',
      data: { children: [{ name: 'leaf' }] },
    });
    // Data that fails the zod schema comes back PARTIAL (the tool is not idempotent): still valid.
    const partial = await client.callTool({
      name: 'tree',
      arguments: { lie: true },
    });
    expect(partial.structuredContent).toMatchObject({
      status: 'partial',
      reason: 'output_schema_mismatch',
    });
    // And the schema has teeth: a success whose data does not conform is refused.
    const validate = new AjvJsonSchemaValidator().getValidator(schema as never);
    expect(
      validate({ status: 'success', data: { name: 'x', children: [1] } }).valid,
    ).toBe(false);
    expect(
      validate({
        status: 'success',
        data: { name: 'x', children: [{ name: 'y', children: [] }] },
      }).valid,
    ).toBe(true);
  });

  it('answers an unknown tool with isError and NOT_FOUND, through the registry', async () => {
    const client = await connect((await serve(outcomeRegistry())).url);
    const result = await client.callTool({ name: 'nope', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('sends list_changed when a breaker opens, and hides the open circuit by option', async () => {
    const registry = outcomeRegistry();
    const service = await serve(registry, { hideOpenCircuits: true });
    let resolveChanged: ((value: undefined) => void) | undefined;
    const changed = new Promise<undefined>((resolve) => {
      resolveChanged = resolve;
    });
    const client = await connect(service.url, {
      onToolsChanged: () => {
        resolveChanged?.(undefined);
      },
    });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain(
      'flaky',
    );
    await client.callTool({ name: 'flaky', arguments: {} });
    await client.callTool({ name: 'flaky', arguments: {} });
    await changed;
    expect(registry.health().find((s) => s.name === 'flaky')?.state).toBe(
      'open',
    );
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(
      'flaky',
    );
  });

  it('sends list_changed by itself when a tool is registered or replaced', async () => {
    const registry = new ToolRegistry();
    const service = await serve(registry);
    let changes = 0;
    let onChange: (() => void) | undefined;
    const nextChange = (): Promise<void> =>
      new Promise<void>((resolve) => {
        onChange = resolve;
      });
    const client = await connect(service.url, {
      onToolsChanged: () => {
        changes += 1;
        onChange?.();
      },
    });
    expect((await client.listTools()).tools).toEqual([]);
    const late = (description: string) =>
      defineTool({
        name: 'late',
        description,
        input: z.object({}),
        run: () => ToolResponse.success('here'),
      });
    let changed = nextChange();
    registry.register(late('Registered after the client connected'));
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'late',
    ]);
    changed = nextChange();
    registry.register(late('Replaced'), { replace: true });
    await changed;
    expect((await client.listTools()).tools[0]?.description).toBe('Replaced');
    expect(changes).toBe(2);
  });

  it('sends list_changed when asked, for changes the registry cannot see', async () => {
    const registry = new ToolRegistry();
    const service = await serve(registry);
    let resolveChanged: (() => void) | undefined;
    const changed = new Promise<void>((resolve) => {
      resolveChanged = resolve;
    });
    const client = await connect(service.url, {
      onToolsChanged: () => resolveChanged?.(),
    });
    // A request first, so that the client's notification stream is open.
    await client.listTools();
    service.toolsChanged();
    await changed;
  });

  it('refuses requests without the bearer token', async () => {
    const service = await serve(outcomeRegistry(), { bearerToken: 's3cret' });
    await expect(connect(service.url)).rejects.toThrow();
    await expect(connect(service.url, { token: 'wrong' })).rejects.toThrow();
    const client = await connect(service.url, { token: 's3cret' });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const raw = await fetch(service.url, { method: 'POST', body: '{}' });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers 404 off the /mcp path and 400 to a body that is not JSON', async () => {
    const service = await serve(outcomeRegistry());
    expect((await fetch(new URL('/other', service.url))).status).toBe(404);
    const bad = await fetch(service.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{not json',
    });
    expect(bad.status).toBe(400);
  });

  it("aborts the call's signal when a 2025-era client cancels mid-call (notifications/cancelled)", async () => {
    const registry = outcomeRegistry();
    const client = await connect((await serve(registry)).url);
    const started = new Promise<void>((resolve) => {
      const off = registry.on('tool:start', () => {
        off();
        resolve();
      });
    });
    const ended = new Promise<ToolEndEvent>((resolve) => {
      const off = registry.on('tool:end', (event) => {
        off();
        resolve(event);
      });
    });
    expect(await cancelHang(client, started)).toBeInstanceOf(Error);
    const end = await ended;
    expect(end.response).toMatchObject({
      status: 'error',
      errorInfo: { cancelled: true },
    });
  });

  it('sends progress notifications only when the client asked, in order and never backwards', async () => {
    const client = await connect((await serve(outcomeRegistry())).url);
    const reports: unknown[] = [];
    const result = await client.callTool(
      { name: 'steps', arguments: {} },
      { onprogress: (report) => reports.push(report) },
    );
    expect(result.structuredContent).toEqual({ status: 'success' });
    // The SDK client drops reports that arrive in the same chunk as the result (it forgets the
    // call before its notification handlers run), so only order is certain here; the round trip
    // through importMcpTools, which keeps its listener past the result, proves every report
    // arrives.
    const seen = reports.map((r) => (r as { message: string }).message);
    expect(seen).not.toContain('backwards');
    expect(['one', 'two', 'three'].filter((m) => seen.includes(m))).toEqual(
      seen,
    );
  });

  it('serves 2026-era clients per request, and a closed request cancels the call', async () => {
    const registry = outcomeRegistry();
    const service = await serve(registry);
    const client = await connect(service.url, { modern: true });
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const ok = await client.callTool({
      name: 'add',
      arguments: { a: 2, b: 2 },
    });
    expect(ok.structuredContent).toEqual({
      status: 'success',
      data: { sum: 4 },
    });
    const ended = new Promise<boolean | undefined>((resolve) => {
      const off = registry.on('tool:end', (event) => {
        if (event.toolName !== 'hang') return;
        off();
        resolve(
          event.response.status === 'error'
            ? event.response.errorInfo.cancelled
            : undefined,
        );
      });
    });
    const started = new Promise<void>((resolve) => {
      const off = registry.on('tool:start', (event) => {
        if (event.toolName !== 'hang') return;
        off();
        resolve();
      });
    });
    await cancelHang(client, started);
    expect(await ended).toBe(true);
  });
});

describe('serveRegistry over stdio, seen by the official SDK client', () => {
  it('answers calls and sends list_changed when a breaker opens', async () => {
    let resolveChanged: ((value: undefined) => void) | undefined;
    const changed = new Promise<undefined>((resolve) => {
      resolveChanged = resolve;
    });
    const client = new Client(
      { name: 'test', version: '1' },
      {
        listChanged: {
          tools: {
            autoRefresh: false,
            debounceMs: 0,
            onChanged: () => {
              resolveChanged?.(undefined);
            },
          },
        },
      },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          '--import',
          'tsx',
          '--conditions=@candor/source',
          fileURLToPath(
            new URL('./__fixtures__/serve-outcomes-stdio.ts', import.meta.url),
          ),
        ],
        stderr: 'ignore',
      }),
    );
    cleanups.push(() => client.close());
    const first = await client.callTool({ name: 'flaky', arguments: {} });
    expect(first.isError).toBe(true);
    expect(first.structuredContent).toMatchObject({ code: 'NETWORK_ERROR' });
    await client.callTool({ name: 'flaky', arguments: {} });
    await changed;
    const refused = await client.callTool({ name: 'flaky', arguments: {} });
    expect(refused.structuredContent).toMatchObject({ code: 'CIRCUIT_OPEN' });
  }, 30_000);
});
