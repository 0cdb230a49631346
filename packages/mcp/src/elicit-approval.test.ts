// Approval through MCP elicitation: the official SDK client, with and without the elicitation
// capability, against createRegistryServer (in-memory linked pair) and serveRegistry (HTTP).
import {
  type ApprovalGate,
  type ToolEndEvent,
  ToolRegistry,
} from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import {
  type CallToolResult,
  Client,
  type ElicitRequest,
  type ElicitResult,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { linkInMemory } from './__fixtures__/link-in-memory.ts';
import { type ElicitApprovalOptions } from './elicit-approval.ts';
import { createRegistryServer } from './create-registry-server.ts';
import { serveRegistry } from './serve-registry.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  readonly registry: ToolRegistry;
  readonly runs: string[];
  readonly ends: ToolEndEvent[];
}

function deployRegistry(gate?: ApprovalGate): Setup {
  const registry = new ToolRegistry({
    breaker: false,
    ...(gate === undefined ? {} : { approve: gate }),
  });
  const runs: string[] = [];
  const ends: ToolEndEvent[] = [];
  registry.on('tool:end', (event) => ends.push(event));
  registry.register(
    defineTool({
      name: 'deploy',
      description: 'Deploys a service',
      input: z.object({ env: z.string(), apiKey: z.string().optional() }),
      run: ({ env }) => {
        runs.push(env);
        return ToolResponse.success(`deployed to ${env}`);
      },
    }),
  );
  cleanups.push(() => {
    registry.shutdown();
    return Promise.resolve();
  });
  return { registry, runs, ends };
}

type Answer = (
  request: ElicitRequest,
  signal: AbortSignal,
) => ElicitResult | Promise<ElicitResult>;

/** The official client over an in-memory linked pair; `answer` makes it declare elicitation. */
async function connect(
  registry: ToolRegistry,
  options: {
    answer?: Answer;
    elicitApproval?: ElicitApprovalOptions | true;
  } = {},
): Promise<{ client: Client; asked: ElicitRequest[] }> {
  const asked: ElicitRequest[] = [];
  const server = createRegistryServer(registry, {
    elicitApproval: options.elicitApproval ?? true,
  });
  const client = new Client(
    { name: 'test', version: '1' },
    options.answer === undefined
      ? {}
      : { capabilities: { elicitation: { form: {} } } },
  );
  const { answer } = options;
  if (answer !== undefined) {
    client.setRequestHandler('elicitation/create', (request, context) => {
      asked.push(request);
      return answer(request, context.mcpReq.signal);
    });
  }
  cleanups.push(await linkInMemory(server, client));
  return { client, asked };
}

/**
 * A hand-written 2025-era client on the raw transport: declares elicitation, calls deploy and
 * answers the question with `answer` as the JSON-RPC result, whatever it is.
 */
async function rawCall(
  registry: ToolRegistry,
  answer: unknown,
): Promise<unknown> {
  const server = createRegistryServer(registry, {
    elicitApproval: { timeoutMs: 200 },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  cleanups.push(() => server.close());
  const result = new Promise<unknown>((resolve) => {
    clientSide.onmessage = (message) => {
      const frame = message as {
        id?: number | string;
        method?: string;
        result?: unknown;
      };
      if (frame.method === 'elicitation/create' && frame.id !== undefined) {
        void clientSide.send({
          jsonrpc: '2.0',
          id: frame.id,
          result: answer,
        } as never);
      } else if (frame.id === 2) {
        resolve(frame.result);
      }
    };
  });
  await server.connect(serverSide);
  await clientSide.start();
  await clientSide.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: {} },
      clientInfo: { name: 'raw', version: '1' },
    },
  });
  await clientSide.send({
    jsonrpc: '2.0',
    method: 'notifications/initialized',
  });
  await clientSide.send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'deploy', arguments: { env: 'prod' } },
  });
  return result;
}

async function deploy(client: Client, env = 'prod'): Promise<CallToolResult> {
  return client.callTool({
    name: 'deploy',
    arguments: { env, apiKey: 'sk-live-123' },
  });
}

function textOf(result: CallToolResult): string {
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}

describe('approval through MCP elicitation', () => {
  it('asks the client, and runs the call when the person accepts', async () => {
    const gate = vi.fn(() => false);
    const { registry, runs } = deployRegistry(gate);
    const { client, asked } = await connect(registry, {
      answer: () => ({ action: 'accept' }),
    });
    const result = await deploy(client);
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ status: 'success' });
    expect(textOf(result)).toBe('deployed to prod');
    expect(runs).toEqual(['prod']);
    // The person's answer decides instead of the gate, which is never asked.
    expect(gate).not.toHaveBeenCalled();
    expect(asked).toHaveLength(1);
    expect(asked[0]?.params).toMatchObject({
      mode: 'form',
      requestedSchema: { type: 'object', properties: {} },
    });
    // The question names the tool and shows the censored arguments.
    const message = asked[0]?.params.message ?? '';
    expect(message).toContain('"deploy"');
    expect(message).toContain('"env":"prod"');
    expect(message).not.toContain('sk-live-123');
  });

  it('answers a decline with a denial: isError false, said in the text, the tool not run', async () => {
    const { registry, runs, ends } = deployRegistry();
    const { client } = await connect(registry, {
      answer: () => ({ action: 'decline' }),
    });
    const result = await deploy(client);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain(
      'The approval gate refused the call to "deploy" (reason: the person at the MCP client declined it).',
    );
    expect(result.structuredContent).toMatchObject({
      status: 'error',
      code: 'ACCESS_DENIED',
      denied: true,
      retryable: false,
    });
    expect(runs).toEqual([]);
    expect(ends.map((end) => [end.stage, end.outcome])).toEqual([
      ['approval', 'denied'],
    ]);
  });

  it('answers a cancel (the question dismissed) with a denial too', async () => {
    const { registry, runs } = deployRegistry();
    const { client } = await connect(registry, {
      answer: () => ({ action: 'cancel' }),
    });
    const result = await deploy(client);
    expect(result.structuredContent).toMatchObject({ denied: true });
    expect(textOf(result)).toContain('dismissed the question');
    expect(runs).toEqual([]);
  });

  it('falls back to the registry gate for a client without the elicitation capability', async () => {
    const gate = vi.fn(() => ({
      approved: false,
      reason: 'no one to ask',
    }));
    const { registry, runs } = deployRegistry(gate);
    const { client } = await connect(registry);
    const result = await deploy(client);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain('(reason: no one to ask)');
    expect(result.structuredContent).toMatchObject({ denied: true });
    expect(gate).toHaveBeenCalledTimes(1);
    expect(runs).toEqual([]);
  });

  it('runs every call for a client without the capability when the registry has no gate', async () => {
    const { registry, runs } = deployRegistry();
    const { client } = await connect(registry);
    expect((await deploy(client)).structuredContent).toEqual({
      status: 'success',
    });
    expect(runs).toEqual(['prod']);
  });

  it('leaves the calls `when` excludes to the gate, and a throwing `when` fails the call', async () => {
    const gate = vi.fn(() => true);
    const { registry, runs } = deployRegistry(gate);
    const { client, asked } = await connect(registry, {
      answer: () => ({ action: 'decline' }),
      elicitApproval: {
        when: ({ params }) => {
          const { env } = params as { env: string };
          if (env === 'boom') throw new Error('policy lookup failed');
          return env === 'prod';
        },
      },
    });
    expect((await deploy(client, 'staging')).structuredContent).toEqual({
      status: 'success',
    });
    expect(gate).toHaveBeenCalledTimes(1);
    expect(asked).toHaveLength(0);
    expect((await deploy(client, 'prod')).structuredContent).toMatchObject({
      denied: true,
    });
    expect(asked).toHaveLength(1);
    const failed = await deploy(client, 'boom');
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(textOf(failed)).toContain('policy lookup failed');
    expect(runs).toEqual(['staging']);
  });

  it('refuses on an accept that carries fields the question did not ask for', async () => {
    const { registry, runs } = deployRegistry();
    const { client } = await connect(registry, {
      answer: () => ({ action: 'accept', content: { approved: false } }),
    });
    const result = await deploy(client);
    expect(result.structuredContent).toMatchObject({ denied: true });
    expect(textOf(result)).toContain('fields the question did not ask for');
    expect(runs).toEqual([]);
  });

  it('refuses on an answer that is not a valid ElicitResult, or a client handler that throws', async () => {
    const { registry, runs } = deployRegistry();
    const answers: Answer[] = [
      () => ({ action: 'maybe' }) as unknown as ElicitResult,
      () => ({ action: 'accept', content: 'yes' }) as unknown as ElicitResult,
      () => {
        throw new Error('the dialog crashed');
      },
    ];
    const { client } = await connect(registry, {
      answer: (request, signal) => {
        const next = answers.shift();
        if (next === undefined) throw new Error('asked too often');
        return next(request, signal);
      },
    });
    const texts: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const result = await deploy(client);
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toMatchObject({ denied: true });
      texts.push(textOf(result));
    }
    for (const text of texts) {
      expect(text).toMatch(
        /reason: (asking the MCP client for approval failed|the MCP client)/,
      );
    }
    expect(texts[2]).toContain('the dialog crashed');
    expect(runs).toEqual([]);
  });

  it('refuses on malformed answers a raw client sends past any SDK validation', async () => {
    const { registry, runs } = deployRegistry();
    const odd: [unknown, string][] = [
      [{ action: 'maybe' }, 'failed: Invalid result for elicitation/create'],
      [
        { action: 'accept', content: { nested: { deep: true } } },
        'failed: Invalid result for elicitation/create',
      ],
      [
        { action: 'accept', content: [] },
        'failed: Invalid result for elicitation/create',
      ],
      // Not a JSON-RPC result object: the SDK drops the frame, so it is no answer at all.
      ['accept', 'did not answer the approval question within 200 ms'],
      [null, 'did not answer the approval question within 200 ms'],
    ];
    for (const [answer, reason] of odd) {
      const result = (await rawCall(registry, answer)) as CallToolResult;
      expect(result).toMatchObject({
        isError: false,
        structuredContent: { code: 'ACCESS_DENIED', denied: true },
      });
      expect(textOf(result)).toContain(reason);
    }
    expect(runs).toEqual([]);
  });

  it('denies, saying so, when the client never answers within timeoutMs', async () => {
    const { registry, runs } = deployRegistry();
    let questionWithdrawn!: () => void;
    const withdrawn = new Promise<void>((resolve) => {
      questionWithdrawn = resolve;
    });
    const { client } = await connect(registry, {
      // Never settles until the server gives up and withdraws the question.
      answer: (_request, signal) =>
        new Promise<ElicitResult>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            questionWithdrawn();
            reject(new Error('withdrawn'));
          });
        }),
      elicitApproval: { timeoutMs: 50 },
    });
    const result = await deploy(client);
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ denied: true });
    expect(textOf(result)).toContain(
      'the MCP client did not answer the approval question within 50 ms',
    );
    // The SDK sent notifications/cancelled for the question: the client's handler was aborted.
    await withdrawn;
    expect(runs).toEqual([]);
  });

  it('settles a call the client cancels while its question is unanswered', async () => {
    const { registry, runs, ends } = deployRegistry();
    const ended = new Promise<ToolEndEvent>((resolve) => {
      registry.on('tool:end', resolve);
    });
    let questionWithdrawn!: () => void;
    const withdrawn = new Promise<void>((resolve) => {
      questionWithdrawn = resolve;
    });
    let asked!: () => void;
    const questionAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const { client } = await connect(registry, {
      answer: (_request, signal) =>
        new Promise<ElicitResult>((_resolve, reject) => {
          asked();
          signal.addEventListener('abort', () => {
            questionWithdrawn();
            reject(new Error('withdrawn'));
          });
        }),
    });
    const abort = new AbortController();
    const call = client.callTool(
      { name: 'deploy', arguments: { env: 'prod' } },
      { signal: abort.signal },
    );
    await questionAsked;
    abort.abort(new Error('the user pressed stop'));
    await expect(call).rejects.toThrow();
    const end = await ended;
    // The call settled at the approval stage: refused, never run, and the question withdrawn.
    expect(end).toMatchObject({ stage: 'approval', outcome: 'denied' });
    expect(end.response.text).toContain(
      'the call was cancelled while waiting for approval',
    );
    await withdrawn;
    expect(runs).toEqual([]);
    expect(ends).toHaveLength(1);
  });

  it('rejects options that cannot work when the server is made', () => {
    const { registry } = deployRegistry();
    expect(() =>
      createRegistryServer(registry, { elicitApproval: { timeoutMs: -1 } }),
    ).toThrow(
      'elicitApproval.timeoutMs must be a positive number of milliseconds (got -1)',
    );
    expect(() =>
      createRegistryServer(registry, {
        elicitApproval: { when: 'always' } as never,
      }),
    ).toThrow('elicitApproval.when must be a function');
  });
});

describe('approval through MCP elicitation over Streamable HTTP', () => {
  async function httpClient(
    registry: ToolRegistry,
    options: { answer?: Answer; modern?: boolean },
  ): Promise<Client> {
    const service = await serveRegistry(registry, {
      transport: 'http',
      allowWritesWithoutToken: true,
      elicitApproval: true,
    });
    cleanups.push(() => service.close());
    const client = new Client(
      { name: 'test', version: '1' },
      {
        ...(options.modern === true
          ? { versionNegotiation: { mode: 'auto' as const } }
          : {}),
        capabilities: { elicitation: { form: {} } },
      },
    );
    const { answer } = options;
    client.setRequestHandler('elicitation/create', (request, context) =>
      answer === undefined
        ? { action: 'decline' }
        : answer(request, context.mcpReq.signal),
    );
    if (service.url === undefined) throw new Error('no url');
    await client.connect(new StreamableHTTPClientTransport(service.url));
    cleanups.push(() => client.close());
    return client;
  }

  it('asks a 2025-era client on its session and runs the call it accepts', async () => {
    const { registry, runs } = deployRegistry(() => false);
    const client = await httpClient(registry, {
      answer: () => ({ action: 'accept', content: {} }),
    });
    expect((await deploy(client)).structuredContent).toEqual({
      status: 'success',
    });
    expect(runs).toEqual(['prod']);
  });

  it('leaves a 2026-07-28-era request, which cannot be asked, to the registry gate', async () => {
    const gate = vi.fn(() => ({ approved: false, reason: 'gate says no' }));
    const { registry, runs } = deployRegistry(gate);
    const answer = vi.fn<Answer>(() => ({ action: 'accept' }));
    const client = await httpClient(registry, { answer, modern: true });
    const result = await deploy(client);
    expect(textOf(result)).toContain('(reason: gate says no)');
    expect(gate).toHaveBeenCalledTimes(1);
    expect(answer).not.toHaveBeenCalled();
    expect(runs).toEqual([]);
  });
});
