// Candor registry → MCP server (stdio child process, and Streamable HTTP on 127.0.0.1) → the
// official SDK client → importMcpTools → a second registry: every outcome survives every hop.
import { fileURLToPath } from 'node:url';
import { allToolErrorCodes } from '@candor/errors';
import { ToolRegistry, type ToolEndEvent } from '@candor/registry';
import { outcomeOf, type ToolResponse } from '@candor/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeRegistry } from './__fixtures__/outcome-registry.ts';
import { type McpImport, type McpServerSource } from './import-mcp-options.ts';
import { importMcpTools } from './import-mcp-tools.ts';
import { type RegistryService } from './serve-options.ts';
import { serveRegistry } from './serve-registry.ts';

const stdioServer = fileURLToPath(
  new URL('./__fixtures__/serve-outcomes-stdio.ts', import.meta.url),
);

function errorInfo(response: ToolResponse) {
  if (response.status !== 'error')
    throw new Error(`expected an error, got ${response.status}`);
  return response.errorInfo;
}

interface Wire {
  readonly name: string;
  start(): Promise<{
    source: McpServerSource;
    served?: ToolRegistry;
    stop(): Promise<void>;
  }>;
}

const wires: Wire[] = [
  {
    name: 'stdio child process',
    start: () =>
      Promise.resolve({
        source: {
          stdio: {
            command: process.execPath,
            args: [
              '--import',
              'tsx',
              '--conditions=@candor/source',
              stdioServer,
            ],
          },
        },
        stop: () => Promise.resolve(),
      }),
  },
  {
    name: 'Streamable HTTP on 127.0.0.1',
    start: async () => {
      const served = outcomeRegistry();
      const service: RegistryService = await serveRegistry(served, {
        transport: 'http',
        bearerToken: 'test-token',
      });
      if (service.url === undefined) throw new Error('no url');
      return {
        source: {
          http: {
            url: service.url,
            headers: { authorization: 'Bearer test-token' },
          },
        },
        served,
        stop: async () => {
          await service.close();
          served.shutdown();
        },
      };
    },
  },
];

describe.each(wires)('round trip over $name', (wire) => {
  let registry: ToolRegistry;
  let imported: McpImport;
  let served: ToolRegistry | undefined;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const started = await wire.start();
    served = started.served;
    stop = () => started.stop();
    registry = new ToolRegistry({ breaker: false });
    imported = await importMcpTools(started.source, registry, {
      prefix: 'remote_',
      reconnect: false,
    });
  }, 30_000);

  afterAll(async () => {
    await imported.close();
    await stop();
    registry.shutdown();
  });

  it('imports every tool with its JSON Schema and idempotence', () => {
    expect([...imported.tools].sort()).toEqual(
      ['add', 'fail', 'flaky', 'guarded', 'hang', 'rounded', 'steps'].map(
        (n) => `remote_${n}`,
      ),
    );
    const add = registry
      .specs({ format: 'json-schema' })
      .find((s) => s.name === 'remote_add');
    expect(add?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(
      registry.list().find((t) => t.name === 'remote_add')?.idempotent,
    ).toBe(true);
  });

  it('carries success with its data', async () => {
    const response = await registry.call('remote_add', { a: 2, b: 3 });
    expect(response.status).toBe('success');
    expect(response.text).toBe('5');
    expect('data' in response && response.data).toEqual({ sum: 5 });
  });

  it('carries partial with its reason, text and data', async () => {
    const response = await registry.call('remote_rounded', {});
    expect(response.status).toBe('partial');
    expect(response.status === 'partial' && response.reason).toBe('rounded');
    expect(response.text).toBe('about 3');
    expect('data' in response && response.data).toBe(3.14159);
  });

  it.each(allToolErrorCodes.filter((code) => code !== 'CIRCUIT_OPEN'))(
    'carries error %s with its retryability and data',
    async (code) => {
      const response = await registry.call('remote_fail', { code });
      const info = errorInfo(response);
      expect(info.code).toBe(code);
      expect(info.message).toBe(`failed with ${code}`);
      const original = await outcomeRegistry().call('fail', { code });
      expect(info.retryable).toBe(errorInfo(original).retryable);
      if (code === 'RATE_LIMIT') expect(info.retryAfterMs).toBe(2000);
      expect('data' in response && response.data).toEqual({ attempt: 1 });
    },
  );

  it('carries a denial as a denial, not an error', async () => {
    const response = await registry.call('remote_guarded', {});
    expect(outcomeOf(response)).toBe('denied');
    expect(errorInfo(response).message).toContain('the user said no');
  });

  it('carries CIRCUIT_OPEN once the served breaker opens', async () => {
    await registry.call('remote_flaky', {});
    await registry.call('remote_flaky', {});
    const response = await registry.call('remote_flaky', {});
    const info = errorInfo(response);
    expect(info.code).toBe('CIRCUIT_OPEN');
    expect(info.retryAfterMs).toBeGreaterThan(0);
  });

  it("passes the served tool's progress through both hops, in order and never backwards", async () => {
    const reports: unknown[] = [];
    const response = await registry.call(
      'remote_steps',
      {},
      { onProgress: (report) => reports.push(report) },
    );
    expect(response.status).toBe('success');
    expect(reports).toEqual([
      { progress: 1, total: 3, message: 'one' },
      { progress: 2, total: 3, message: 'two' },
      { progress: 3, total: 3, message: 'three' },
    ]);
  });

  it('rejects malformed arguments locally with INVALID_PARAM', async () => {
    const ends: ToolEndEvent[] = [];
    const off = served?.on('tool:end', (event) => ends.push(event));
    const response = await registry.call('remote_add', { a: 'two' });
    off?.();
    expect(errorInfo(response).code).toBe('INVALID_PARAM');
    expect(ends).toEqual([]);
  });

  it('times out locally and cancels the call on the server', async () => {
    const serverEnd =
      served === undefined
        ? undefined
        : new Promise<ToolEndEvent>((resolve) => {
            const off = served?.on('tool:end', (event) => {
              if (event.toolName === 'hang') {
                off?.();
                resolve(event);
              }
            });
          });
    const response = await registry.call('remote_hang', {}, { timeoutMs: 100 });
    expect(errorInfo(response).code).toBe('TIMEOUT');
    if (serverEnd !== undefined) {
      const end = await serverEnd;
      expect(errorInfo(end.response).cancelled).toBe(true);
    }
  });

  it('cancels when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = registry.call(
      'remote_hang',
      {},
      { signal: controller.signal },
    );
    controller.abort();
    const response = await pending;
    expect(errorInfo(response).cancelled).toBe(true);
  });
});
