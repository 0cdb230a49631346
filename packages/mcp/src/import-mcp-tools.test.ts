// importMcpTools against a real MCP server, written with the official SDK and run as its own
// process over stdio, that misbehaves on purpose.
import { ToolRegistry } from '@candor/registry';
import { type Logger } from '@candor/tools';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  codeOf,
  misbehavingStdio,
  next,
} from './__fixtures__/misbehaving-link.ts';
import { type McpImport } from './import-mcp-options.ts';
import { importMcpTools } from './import-mcp-tools.ts';
import { pingRegistry } from './__fixtures__/ping-registry.ts';
import { type RegistryService } from './serve-options.ts';
import { serveRegistry } from './serve-registry.ts';

// These servers serve every tool without a token: the walls are tested elsewhere.
const openHttp = { transport: 'http', allowWritesWithoutToken: true } as const;

describe('importMcpTools against a misbehaving SDK server (stdio child process)', () => {
  let registry: ToolRegistry;
  let link: McpImport;

  beforeAll(async () => {
    registry = new ToolRegistry({
      breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 60_000 },
    });
    link = await importMcpTools({ stdio: misbehavingStdio }, registry, {
      reconnect: { initialDelayMs: 10 },
    });
  }, 30_000);

  afterAll(async () => {
    await link.close();
    registry.shutdown();
  });

  async function stats(): Promise<{
    cancelled: number;
    reached: number;
    pid: number;
  }> {
    const response = await registry.call('stats', {});
    if (!('data' in response)) throw new Error('no stats');
    return response.data as { cancelled: number; reached: number; pid: number };
  }

  it('passes a good call through', async () => {
    const response = await registry.call('echo', { message: 'hi' });
    expect(response.status).toBe('success');
    expect(response.text).toBe('hi');
  });

  it('validates arguments locally: a malformed call never reaches the server', async () => {
    const before = (await stats()).reached;
    const response = await registry.call('echo', { message: 5 });
    expect(codeOf(response)).toBe('INVALID_PARAM');
    expect(response.status === 'error' && response.errorInfo.message).toContain(
      'message',
    );
    expect((await stats()).reached).toBe(before + 1); // only the stats call itself
  });

  it('a thrown error is a JSON-RPC internal error: INTERNAL_ERROR', async () => {
    const response = await registry.call('throws', {});
    expect(codeOf(response)).toBe('INTERNAL_ERROR');
    expect(response.status === 'error' && response.errorInfo.message).toContain(
      'the tool blew up',
    );
  });

  it('isError without a Candor code is EXECUTION_ERROR with the server text', async () => {
    const response = await registry.call('is_error', {});
    expect(codeOf(response)).toBe('EXECUTION_ERROR');
    expect(response.status === 'error' && response.errorInfo.message).toBe(
      'the disk is full',
    );
  });

  it('isError with a Candor code in structuredContent keeps that code', async () => {
    const response = await registry.call('rate_limited', {});
    expect(codeOf(response)).toBe('RATE_LIMIT');
    expect(response.status === 'error' && response.errorInfo.retryAfterMs).toBe(
      1500,
    );
  });

  it('an error envelope with an unknown code is EXECUTION_ERROR even when isError is false, keeping the code word', async () => {
    const response = await registry.call('says_teapot', {});
    expect(codeOf(response)).toBe('EXECUTION_ERROR');
    if (response.status !== 'error') throw new Error('not an error');
    expect(response.errorInfo.message).toContain('short and stout');
    expect(response.errorInfo.message).toContain('"TEAPOT"');
    expect(response.errorInfo.details).toEqual({ mcpCode: 'TEAPOT' });
  });

  it('an error envelope without a code is EXECUTION_ERROR even when isError is false', async () => {
    const response = await registry.call('says_error_without_code', {});
    expect(codeOf(response)).toBe('EXECUTION_ERROR');
    expect(response.status === 'error' && response.errorInfo.message).toBe(
      'it went wrong',
    );
  });

  it('a status word Candor does not know is not a success: PARTIAL unrecognised_status, text and data kept', async () => {
    const response = await registry.call('says_done', {});
    expect(response.status).toBe('partial');
    expect(response.status === 'partial' && response.reason).toBe(
      'unrecognised_status',
    );
    expect(response.text).toBe('finished?');
    expect('data' in response && response.data).toEqual({
      status: 'done',
      data: { rows: 3 },
    });
  });

  it("a foreign server's own fields beside a status word are kept whole as data, never dropped", async () => {
    const response = await registry.call('says_success_with_rows', {});
    expect(response.status).toBe('success');
    expect('data' in response && response.data).toEqual({
      status: 'success',
      rows: [1, 2],
      total: 2,
    });
  });

  it.each(['is_error_says_success', 'is_error_says_partial'])(
    'isError true wins over an envelope that says otherwise (%s)',
    async (tool) => {
      const response = await registry.call(tool, {});
      expect(codeOf(response)).toBe('EXECUTION_ERROR');
    },
  );

  it('a result that is not a CallToolResult is INTERNAL_ERROR, never success', async () => {
    const response = await registry.call('invalid', {});
    expect(codeOf(response)).toBe('INTERNAL_ERROR');
  });

  it.each([
    ['not_found', 'NOT_FOUND'],
    ['bad_params', 'INVALID_PARAM'],
  ])(
    'a JSON-RPC error from the server (%s) is mapped by its code: %s',
    async (tool, expected) => {
      const response = await registry.call(tool, {});
      expect(codeOf(response)).toBe(expected);
    },
  );

  it('a result with an id nobody asked for is never read as the answer: TIMEOUT, and the link still works', async () => {
    const response = await registry.call('wrong_id', {}, { timeoutMs: 200 });
    expect(codeOf(response)).toBe('TIMEOUT');
    expect((await registry.call('echo', { message: 'still here' })).text).toBe(
      'still here',
    );
  });

  it("a huge result arrives whole over the pipe and is capped by the registry's maxResultChars", async () => {
    const response = await registry.call('huge', {});
    expect(response.status).toBe('partial');
    expect(response.status === 'partial' && response.reason).toBe(
      'result_truncated',
    );
    expect(response.text.length).toBeLessThan(1_000_000);
    expect(response.text.startsWith('xxxx')).toBe(true);
  });

  it('an empty content list is a success with empty text', async () => {
    const response = await registry.call('empty', {});
    expect(response.status).toBe('success');
    expect(response.text).toBe('');
  });

  it('a hang times out locally and is cancelled on the server', async () => {
    const before = (await stats()).cancelled;
    const response = await registry.call('hangs', {}, { timeoutMs: 100 });
    expect(codeOf(response)).toBe('TIMEOUT');
    // The cancellation is a notification: a later request on the same pipe is read after it.
    expect((await stats()).cancelled).toBe(before + 1);
  });

  it('list_changed from the server refreshes the registry', async () => {
    const refreshed = next(link, 'refreshed');
    await registry.call('add_tool', {});
    const { tools } = await refreshed;
    expect(tools).toContain('extra_tool');
    expect((await registry.call('extra_tool', {})).status).toBe('success');
    const removed = next(link, 'refreshed');
    await registry.call('remove_tool', {});
    expect((await removed).tools).not.toContain('extra_tool');
    const gone = await registry.call('extra_tool', {});
    expect(codeOf(gone)).toBe('NOT_FOUND');
    expect(gone.status === 'error' && gone.errorInfo.message).toContain(
      'no longer offers "extra.tool"',
    );
  });

  it('exiting mid-call is NETWORK_ERROR, and the respawned server serves again', async () => {
    const firstPid = (await stats()).pid;
    const disconnected = next(link, 'disconnected');
    const connected = next(link, 'connected');
    const response = await registry.call('exits', {});
    expect(codeOf(response)).toBe('NETWORK_ERROR');
    await disconnected;
    await connected;
    const after = await stats();
    expect(after.pid).not.toBe(firstPid);
    expect((await registry.call('echo', { message: 'back' })).text).toBe(
      'back',
    );
  }, 30_000);
});

describe('a lost server without reconnection', () => {
  it('makes its tools fail fast with NETWORK_ERROR, and their breakers open', async () => {
    const registry = new ToolRegistry({
      breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 60_000 },
    });
    const link = await importMcpTools({ stdio: misbehavingStdio }, registry, {
      reconnect: false,
    });
    try {
      const disconnected = next(link, 'disconnected');
      expect(codeOf(await registry.call('exits', {}))).toBe('NETWORK_ERROR');
      await disconnected;
      expect(link.connected).toBe(false);
      const down = await registry.call('echo', { message: 'x' });
      expect(codeOf(down)).toBe('NETWORK_ERROR');
      expect(down.status === 'error' && down.errorInfo.message).toContain(
        'not connected',
      );
      expect(codeOf(await registry.call('echo', { message: 'x' }))).toBe(
        'NETWORK_ERROR',
      );
      expect(registry.health().find((s) => s.name === 'echo')?.state).toBe(
        'open',
      );
      expect(codeOf(await registry.call('echo', { message: 'x' }))).toBe(
        'CIRCUIT_OPEN',
      );
    } finally {
      await link.close();
      registry.shutdown();
    }
  }, 30_000);
});

describe('close()', () => {
  it('stops the stdio child, and the tools then answer NETWORK_ERROR without respawning', async () => {
    const registry = new ToolRegistry({ breaker: false });
    const link = await importMcpTools({ stdio: misbehavingStdio }, registry, {
      reconnect: { initialDelayMs: 1 },
    });
    try {
      const stats = await registry.call('stats', {});
      const pid = ('data' in stats && (stats.data as { pid: number }).pid) || 0;
      expect(pid).toBeGreaterThan(0);
      let reconnected = false;
      link.on('connected', () => {
        reconnected = true;
      });
      await link.close();
      expect(link.connected).toBe(false);
      // Signal 0 only asks whether the process is there.
      expect(() => process.kill(pid, 0)).toThrow(
        expect.objectContaining({ code: 'ESRCH' }),
      );
      const after = await registry.call('echo', { message: 'x' });
      expect(codeOf(after)).toBe('NETWORK_ERROR');
      expect(after.status === 'error' && after.errorInfo.message).toContain(
        'has been disconnected',
      );
      expect(reconnected).toBe(false);
    } finally {
      await link.close();
      registry.shutdown();
    }
  }, 30_000);
});

describe('a lost HTTP server', () => {
  it('fails with NETWORK_ERROR, then fast with CIRCUIT_OPEN, and reconnects with backoff when it is back', async () => {
    const served = pingRegistry();
    const first = await serveRegistry(served, openHttp);
    const url = first.url;
    if (url === undefined) throw new Error('no url');
    const registry = new ToolRegistry({ breaker: false });
    const link = await importMcpTools({ http: { url } }, registry, {
      reconnect: { initialDelayMs: 10, maxDelayMs: 40 },
    });
    let second: RegistryService | undefined;
    try {
      expect((await registry.call('ping', {})).text).toBe('pong');
      await first.close();
      const disconnected = next(link, 'disconnected');
      expect(codeOf(await registry.call('ping', {}))).toBe('NETWORK_ERROR');
      await disconnected;
      const down = await registry.call('ping', {});
      expect(codeOf(down)).toBe('CIRCUIT_OPEN');
      expect(down.status === 'error' && down.errorInfo.message).toContain(
        'reconnecting',
      );
      const connected = next(link, 'connected');
      second = await serveRegistry(served, {
        ...openHttp,
        port: Number(url.port),
      });
      await connected;
      expect((await registry.call('ping', {})).text).toBe('pong');
    } finally {
      await link.close();
      await second?.close();
      registry.shutdown();
      served.shutdown();
    }
  }, 30_000);
});

describe('reconnect backoff', () => {
  it('waits initialDelayMs, then doubles each wait up to maxDelayMs while the server stays away', async () => {
    const served = pingRegistry();
    const service = await serveRegistry(served, openHttp);
    const url = service.url;
    if (url === undefined) throw new Error('no url');
    // Each failed reconnection logs once; the test waits for the fourth, no clock involved.
    let failures = 0;
    let fourth: () => void = () => undefined;
    const failedFourTimes = new Promise<void>((resolve) => {
      fourth = resolve;
    });
    const logger: Logger = {
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      error: () => undefined,
      warn: (_fields, message) => {
        if (message === 'MCP reconnect failed' && (failures += 1) === 4)
          fourth();
      },
      child: () => logger,
    };
    const registry = new ToolRegistry({ breaker: false });
    const link = await importMcpTools({ http: { url } }, registry, {
      reconnect: { initialDelayMs: 7, maxDelayMs: 30 },
      logger,
    });
    const delays: number[] = [];
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    try {
      await service.close();
      expect(codeOf(await registry.call('ping', {}))).toBe('NETWORK_ERROR');
      await failedFourTimes;
      for (const [, delay] of setTimeoutSpy.mock.calls) {
        if (
          delay === 7 ||
          delay === 14 ||
          delay === 28 ||
          delay === 30 ||
          delay === 56
        )
          delays.push(delay);
      }
      expect(delays.slice(0, 4)).toEqual([7, 14, 28, 30]);
    } finally {
      setTimeoutSpy.mockRestore();
      await link.close();
      registry.shutdown();
      served.shutdown();
    }
  }, 30_000);
});
