// serveRegistry's HTTP walls against a web page and a flood: DNS rebinding (foreign Host and
// Origin) answered 403 before anything runs, token-less serving limited to read-only tools,
// request bodies capped with 413, and live sessions bounded with idle expiry.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import {
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { rawPost, upload } from './__fixtures__/raw-http.ts';
import {
  rawInitialize,
  serveOverHttp,
} from './__fixtures__/serve-over-http.ts';
import { type HttpServeOptions } from './serve-options.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A registry whose one tool leaves a marker file: proof that a call ran, or did not. */
function markerRegistry(): { registry: ToolRegistry; marker: string } {
  const marker = join(mkdtempSync(join(tmpdir(), 'candor-mcp-')), 'pwned.txt');
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'mark',
      description: 'Writes the marker file',
      input: z.object({}),
      run: () => {
        writeFileSync(marker, 'ran');
        return ToolResponse.success('marked');
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'look',
      description: 'Reads nothing, changes nothing',
      input: z.object({}),
      run: () => ToolResponse.success('looked'),
    }),
  );
  return { registry, marker };
}

const callMark = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'mark', arguments: {} },
});

async function openSession(url: URL): Promise<string> {
  const answer = await rawPost(url, {}, rawInitialize);
  expect(answer.status).toBe(200);
  const id = answer.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error('no session id');
  return id;
}

function onSession(id: string): Record<string, string> {
  return { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
}

async function serve(
  registry: ToolRegistry,
  options: Omit<HttpServeOptions, 'transport'> = {},
): Promise<URL> {
  return (await serveOverHttp(registry, options, cleanups)).url;
}

describe('serveRegistry over HTTP against DNS rebinding', () => {
  it('answers 403 to a foreign Host and Origin, on initialize and on a live session, and runs nothing', async () => {
    const { registry, marker } = markerRegistry();
    const url = await serve(registry);
    const rebound = {
      host: `evil.example:${url.port}`,
      origin: `http://evil.example:${url.port}`,
    };
    const opened = await rawPost(url, rebound, rawInitialize);
    expect(opened.status).toBe(403);
    expect(opened.headers['mcp-session-id']).toBeUndefined();
    const id = await openSession(url);
    const hijack = await rawPost(
      url,
      { ...rebound, ...onSession(id) },
      callMark,
    );
    expect(hijack.status).toBe(403);
    expect(hijack.body).toContain('Invalid Host: evil.example');
    expect(existsSync(marker)).toBe(false);
    // The same call from the loopback name runs: the 403 above was the guard, not a broken call.
    const allowed = await rawPost(url, onSession(id), callMark);
    expect(allowed.status).toBe(200);
    expect(existsSync(marker)).toBe(true);
  });

  it.each([
    ['a foreign Origin', { origin: 'http://evil.example' }],
    [
      'a foreign Origin on a loopback port',
      { origin: 'https://evil.example:443' },
    ],
    ['the opaque null Origin', { origin: 'null' }],
    ['a foreign Host', { host: 'evil.example' }],
    ['a rebound name with the right port', { host: 'attacker.test:1' }],
  ])('answers 403 to %s', async (_label, headers) => {
    const { registry, marker } = markerRegistry();
    const url = await serve(registry);
    const id = await openSession(url);
    const answer = await rawPost(
      url,
      { ...headers, ...onSession(id) },
      callMark,
    );
    expect(answer.status).toBe(403);
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    // A loopback Origin passes on the server's own port only: serve-http-walls.test.ts.
    ['no Origin', {}],
    ['Host localhost', { host: 'localhost' }],
    ['Host [::1]:8080', { host: '[::1]:8080' }],
  ])('lets loopback names through: %s', async (_label, headers) => {
    const { registry } = markerRegistry();
    const url = await serve(registry);
    expect((await rawPost(url, headers, rawInitialize)).status).toBe(200);
  });

  it('takes allowed hosts and origins as options', async () => {
    const { registry } = markerRegistry();
    const url = await serve(registry, {
      allowedHosts: ['mcp.internal'],
      allowedOrigins: ['app.example'],
    });
    expect(
      (
        await rawPost(
          url,
          { host: 'mcp.internal:1', origin: 'https://app.example' },
          rawInitialize,
        )
      ).status,
    ).toBe(200);
    // The lists replace the defaults: loopback names are out unless listed.
    expect((await rawPost(url, {}, rawInitialize)).status).toBe(403);
    expect(
      (
        await rawPost(
          url,
          { host: 'mcp.internal', origin: 'http://localhost' },
          rawInitialize,
        )
      ).status,
    ).toBe(403);
  });

  it('refuses the official SDK client sending a foreign Origin, and nothing runs', async () => {
    const { registry, marker } = markerRegistry();
    const url = await serve(registry);
    const client = new Client({ name: 'page', version: '1' });
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { origin: 'http://evil.example' } },
    });
    await expect(client.connect(transport)).rejects.toThrow(/403|Origin/);
    expect(existsSync(marker)).toBe(false);
    const trusted = new Client({ name: 'cli', version: '1' });
    await trusted.connect(new StreamableHTTPClientTransport(url));
    cleanups.push(() => trusted.close());
    const result = await trusted.callTool({ name: 'mark', arguments: {} });
    expect(result.isError).toBe(false);
    expect(existsSync(marker)).toBe(true);
  });

  it('rejects a badly shaped allow-list with a TypeError naming the option', async () => {
    const { registry } = markerRegistry();
    await expect(
      serve(registry, { allowedHosts: 'localhost' as never }),
    ).rejects.toThrow(/allowedHosts must be an array/);
  });
});

describe('serveRegistry over HTTP without a token', () => {
  async function listed(url: URL, token?: string): Promise<string[]> {
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        ...(token === undefined
          ? {}
          : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      }),
    );
    cleanups.push(() => client.close());
    return (await client.listTools()).tools.map((tool) => tool.name);
  }

  it('serves only tools declared read-only, and a call to another answers ACCESS_DENIED without running it', async () => {
    const { registry, marker } = markerRegistry();
    const url = await serve(registry, {
      allowWritesWithoutToken: false,
      toolAnnotations: { look: { readOnlyHint: true } },
    });
    expect(await listed(url)).toEqual(['look']);
    const id = await openSession(url);
    const answer = await rawPost(url, onSession(id), callMark);
    expect(answer.body).toContain('ACCESS_DENIED');
    expect(answer.body).toContain('without a bearer token');
    expect(existsSync(marker)).toBe(false);
  });

  it('serves every tool with allowWritesWithoutToken, or with a token', async () => {
    const open = markerRegistry();
    const openUrl = await serve(open.registry, {
      allowWritesWithoutToken: true,
    });
    expect(await listed(openUrl)).toEqual(['mark', 'look']);
    const guarded = markerRegistry();
    const guardedUrl = await serve(guarded.registry, {
      allowWritesWithoutToken: false,
      bearerToken: 'T0ken',
    });
    expect(await listed(guardedUrl, 'T0ken')).toEqual(['mark', 'look']);
  });
});

describe('serveRegistry over HTTP, request bodies', () => {
  it('answers 413 to a 100 MB body, declared or streamed, without reading it all', async () => {
    const { registry } = markerRegistry();
    const url = await serve(registry);
    expect(await upload(url, 100, { declared: true })).toBe(413);
    expect(await upload(url, 100, { declared: false })).toBe(413);
    const id = await openSession(url);
    expect(
      await upload(url, 100, { declared: false, headers: onSession(id) }),
    ).toBe(413);
  });

  it('takes its own limit as maxBodyBytes', async () => {
    const { registry } = markerRegistry();
    const url = await serve(registry, { maxBodyBytes: 100 });
    expect((await rawPost(url, {}, rawInitialize)).status).toBe(413);
    await expect(serve(registry, { maxBodyBytes: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe('serveRegistry over HTTP, live sessions', () => {
  it('keeps at most maxSessions: a new one closes the one idle longest', async () => {
    const { registry } = markerRegistry();
    const url = await serve(registry, { maxSessions: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(await openSession(url));
    const listTools = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
    });
    const statuses = [];
    for (const id of ids) {
      statuses.push((await rawPost(url, onSession(id), listTools)).status);
    }
    expect(statuses).toEqual([404, 404, 404, 200, 200, 200]);
  });

  it('closes a session idle for sessionIdleMs; a used one lives on', async () => {
    // Only the sweep's interval and the clock are faked: sockets keep their own timers.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const { registry } = markerRegistry();
    const url = await serve(registry, { sessionIdleMs: 60_000 });
    const idle = await openSession(url);
    const used = await openSession(url);
    const listTools = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
    });
    vi.advanceTimersByTime(40_000);
    expect((await rawPost(url, onSession(used), listTools)).status).toBe(200);
    vi.advanceTimersByTime(40_000);
    expect((await rawPost(url, onSession(idle), listTools)).status).toBe(404);
    expect((await rawPost(url, onSession(used), listTools)).status).toBe(200);
  });
});
