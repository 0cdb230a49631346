// Attacks on serveRegistry's HTTP walls that the first guards let through: a page served from
// another loopback port (its Origin names a loopback host, so a hostname-only check passes it,
// and only the browser's CORS preflight stood in the way), and an absolute-form request-target
// (`POST http://evil.example/mcp`), whose authority, not `Host`, names the server (RFC 9112,
// section 3.2.2). Raw sockets on 127.0.0.1: no HTTP client sends these as given.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveOverHttp } from './__fixtures__/serve-over-http.ts';
import { type HttpServeOptions } from './serve-options.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A registry whose one tool leaves a marker file: proof that a call ran, or did not. */
function markerRegistry(): { registry: ToolRegistry; marker: string } {
  const marker = join(mkdtempSync(join(tmpdir(), 'candor-walls-')), 'ran');
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
  return { registry, marker };
}

/** A 2026-era tools/call: one request, no session, so one POST is the whole attack. */
const modernCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'mark',
    arguments: {},
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

/** Sends one raw HTTP/1.1 POST and resolves with the status code of the answer. */
function rawPost(
  port: number,
  target: string,
  headers: Record<string, string>,
  body = modernCall,
): Promise<number> {
  const lines = Object.entries({
    host: `127.0.0.1:${String(port)}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'mark',
    ...headers,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end(`POST ${target} HTTP/1.1\r\n${lines.join('')}\r\n${body}`);
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0));
    });
  });
}

async function serve(
  registry: ToolRegistry,
  options: Omit<HttpServeOptions, 'transport'> = {},
): Promise<number> {
  const service = await serveOverHttp(registry, options, cleanups);
  return Number(service.url.port);
}

describe('serveRegistry over HTTP, against a page on another loopback port', () => {
  it.each([
    ['http://localhost:5173'],
    ['http://127.0.0.1:8000'],
    ['http://[::1]:3000'],
    ['http://localhost'],
  ])('answers 403 to Origin %s and runs nothing', async (origin) => {
    const { registry, marker } = markerRegistry();
    const port = await serve(registry);
    expect(await rawPost(port, '/mcp', { origin })).toBe(403);
    expect(existsSync(marker)).toBe(false);
  });

  it("lets through no Origin, and a loopback Origin on the server's own port", async () => {
    const { registry, marker } = markerRegistry();
    const port = await serve(registry);
    const own = `http://localhost:${String(port)}`;
    expect(await rawPost(port, '/mcp', { origin: own })).toBe(200);
    expect(existsSync(marker)).toBe(true);
    expect(await rawPost(port, '/mcp', {})).toBe(200);
  });

  it('keeps allowedOrigins port-agnostic: a listed hostname passes on any port', async () => {
    const { registry, marker } = markerRegistry();
    const port = await serve(registry, {
      allowedOrigins: ['localhost', 'app.example'],
    });
    expect(
      await rawPost(port, '/mcp', { origin: 'http://localhost:5173' }),
    ).toBe(200);
    expect(existsSync(marker)).toBe(true);
    expect(
      await rawPost(port, '/mcp', { origin: 'http://127.0.0.1:5173' }),
    ).toBe(403);
  });
});

describe('serveRegistry over HTTP, against an absolute-form request-target', () => {
  it.each([
    ['http://evil.example/mcp'],
    ['http://evil.example:80/mcp'],
    ['http://localhost@evil.example/mcp'],
  ])(
    'answers 403 to POST %s whatever Host says, and runs nothing',
    async (target) => {
      const { registry, marker } = markerRegistry();
      const port = await serve(registry);
      expect(await rawPost(port, target, {})).toBe(403);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it('serves an absolute-form target that names an allowed host (so the refusals above can fail)', async () => {
    const { registry, marker } = markerRegistry();
    const port = await serve(registry);
    expect(
      await rawPost(port, `http://localhost:${String(port)}/mcp`, {}),
    ).toBe(200);
    expect(existsSync(marker)).toBe(true);
  });
});
