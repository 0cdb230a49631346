// Web pages against a real `candor-mcp --http` (a child process, serving shell without a token:
// the worst case) in a real chromium: a DNS-rebinding page (its name resolved to 127.0.0.1 by
// chromium's own resolver rules, so its requests are same-origin and need no CORS) and a page
// served from another loopback port. Each page tries everything a page can send without help
// (CORS fetch, no-cors text/plain, sendBeacon, a text/plain form); none may run `shell`. A
// control run against a server that allows the attacker's name proves the attack is delivered.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const cli = join(root, 'packages', 'mcp', 'src', 'cli.ts');
const executablePath = process.env['CANDOR_CHROMIUM'] ?? '/usr/bin/chromium';
const missing = existsSync(executablePath)
  ? undefined
  : `no chromium at ${executablePath} (apt-get install chromium, or set CANDOR_CHROMIUM)`;
const ATTACKER = 'rebound.example';

const children: ReturnType<typeof spawn>[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    }
  }
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/** `candor-mcp --http` serving shell without a token, in `workspace`; resolves with its port. */
async function startServer(
  workspace: string,
  extra: readonly string[] = [],
): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=@candor/source',
      cli,
      '--http',
      '--workspace',
      workspace,
      '--allow-shell-and-writes-without-token',
      ...extra,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  return new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      const found = /serving http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (found?.[1] !== undefined) resolve(Number(found[1]));
    });
    child.once('exit', (code) => {
      reject(new Error(`candor-mcp exited ${String(code)}: ${stderr}`));
    });
  });
}

/** A 2026-era `tools/call` (no session needed) and a 2025-era `initialize`, as JSON text. */
function shellCall(marker: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: {
      name: 'shell',
      arguments: { command: ['touch', marker] },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'page', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/**
 * Runs in the page: every way a page can POST `body` to `target` on its own, then (for a
 * same-origin target) a full 2025-era session: initialize, then tools/call. Resolves with what
 * the page could read.
 */
async function attack([target, body, marker]: [
  string,
  string,
  string,
]): Promise<string[]> {
  const seen: string[] = [];
  const accept = 'application/json, text/event-stream';
  const tryFetch = async (label: string, init: RequestInit): Promise<void> => {
    try {
      const response = await fetch(target, init);
      seen.push(
        `${label}: ${String(response.status)} ${await response.text()}`,
      );
    } catch (error: unknown) {
      seen.push(`${label}: threw ${String(error)}`);
    }
  };
  await tryFetch('cors json', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'shell',
    },
    body,
  });
  await tryFetch('no-cors text', {
    method: 'POST',
    mode: 'no-cors',
    headers: { 'content-type': 'text/plain', accept },
    body,
  });
  await tryFetch('no-cors json (downgraded by the browser)', {
    method: 'POST',
    mode: 'no-cors',
    headers: { 'content-type': 'application/json', accept },
    body,
  });
  // The test's types are Node's, which have no `navigator.sendBeacon`.
  const page = globalThis as unknown as {
    navigator: { sendBeacon(url: string, data: Blob): boolean };
  };
  try {
    const blob = new Blob([body], { type: 'text/plain' });
    seen.push(`beacon: ${String(page.navigator.sendBeacon(target, blob))}`);
  } catch (error: unknown) {
    seen.push(`beacon: threw ${String(error)}`);
  }
  // A 2025-era session: initialize, then the call with the session id it was given.
  try {
    const init = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'page', version: '1' },
        },
      }),
    });
    const session = init.headers.get('mcp-session-id');
    seen.push(`initialize: ${String(init.status)} session ${String(session)}`);
    if (session !== null) {
      const call = await fetch(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept,
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'shell', arguments: { command: ['touch', marker] } },
        }),
      });
      seen.push(`session call: ${String(call.status)} ${await call.text()}`);
    }
  } catch (error: unknown) {
    seen.push(`initialize: threw ${String(error)}`);
  }
  return seen;
}

describe('candor-mcp --http against web pages in chromium', () => {
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (missing) return;
    browser = await chromium.launch({
      executablePath,
      // Root in CI containers: no sandbox. The resolver rule is DNS rebinding's second answer.
      // Chromium's own Local Network Access checks are off: other browsers (and older ones)
      // have none, and the walls under test are the server's, not the browser's.
      args: [
        '--no-sandbox',
        `--host-resolver-rules=MAP ${ATTACKER} 127.0.0.1`,
        '--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** A loopback server that serves the attacker's page; resolves with its port. */
  async function pageServer(port = 0): Promise<Server> {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>');
    });
    servers.push(server);
    await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
    return server;
  }

  /**
   * Opens the page at `origin` and runs {@link attack} there. No `page.route`: Playwright's
   * request interception answers CORS preflights itself, which a real browser never does.
   * `before` runs after the page loaded, before the attack (to swap the server under it).
   */
  async function runPage(
    origin: string,
    target: string,
    marker: string,
    before?: () => Promise<void>,
  ): Promise<string[]> {
    if (!browser) throw new Error('no browser');
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await page.goto(`${origin}/`);
      await before?.();
      return await page.evaluate(attack, [
        target,
        shellCall(marker),
        marker,
      ] as [string, string, string]);
    } finally {
      await context.close();
    }
  }

  /**
   * DNS rebinding: the page loads from the attacker's server on port P, which then goes away;
   * candor-mcp takes port P, so the page's `/mcp` is same-origin (no CORS applies) and reaches it.
   */
  async function rebind(
    workspace: string,
    marker: string,
    extra: readonly string[] = [],
  ): Promise<string[]> {
    const attacker = await pageServer();
    const port = (attacker.address() as AddressInfo).port;
    const origin = `http://${ATTACKER}:${String(port)}`;
    return runPage(origin, `${origin}/mcp`, marker, async () => {
      attacker.closeAllConnections();
      await new Promise((done) => attacker.close(done));
      await startServer(workspace, ['--port', String(port), ...extra]);
    });
  }

  it('a DNS-rebinding page (same-origin to the server by name) runs nothing; the same page runs shell once its name is allowed', async (context) => {
    if (missing || !browser) return context.skip(missing);
    const workspace = mkdtempSync(join(tmpdir(), 'candor-browser-'));
    const marker = join(workspace, 'pwned.txt');
    const seen = await rebind(workspace, marker);
    expect(existsSync(marker)).toBe(false);
    expect(seen.filter((line) => line.startsWith('cors json'))).toEqual([
      expect.stringMatching(/^cors json: 403 .*Invalid Host/),
    ]);
    expect(seen).toContainEqual(expect.stringMatching(/^initialize: 403 /));

    // The control: the same page, against a server told to accept that name, does run shell,
    // so the refusals above come from the server's walls and not from the browser.
    const control = await rebind(workspace, marker, [
      '--allow-host',
      ATTACKER,
      '--allow-origin',
      ATTACKER,
    ]);
    expect(control).toContainEqual(
      expect.stringMatching(/^session call: 200 .*"status":"success"/s),
    );
    expect(existsSync(marker)).toBe(true);
  }, 120_000);

  it('a page served from another loopback port gets nothing and runs nothing', async (context) => {
    if (missing || !browser) return context.skip(missing);
    const workspace = mkdtempSync(join(tmpdir(), 'candor-browser-'));
    const marker = join(workspace, 'pwned.txt');
    const port = await startServer(workspace);
    // A recorder on a third port shows that the browser does deliver the simple requests.
    const arrived: string[] = [];
    const recorder = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        arrived.push(`${String(request.method)} ${body.slice(0, 20)}`);
        response.end();
      });
    });
    servers.push(recorder);
    await new Promise<void>((done) => recorder.listen(0, '127.0.0.1', done));
    const recorderPort = (recorder.address() as AddressInfo).port;
    const attacker = await pageServer();
    const attackerPort = String((attacker.address() as AddressInfo).port);
    for (const origin of [
      `http://127.0.0.1:${attackerPort}`,
      `http://localhost:${attackerPort}`,
    ]) {
      const seen = await runPage(
        origin,
        `http://127.0.0.1:${String(port)}/mcp`,
        marker,
      );
      expect(existsSync(marker)).toBe(false);
      // Nothing readable: every CORS request failed in the browser.
      expect(seen.filter((line) => /: (?:[1-5]\d\d) /.test(line))).toEqual([]);
    }
    const delivered = new Promise<void>((resolve) => {
      recorder.on('request', () => {
        // The text/plain fetch, the downgraded one and the beacon all arrive with the body.
        if (arrived.filter((line) => line.startsWith('POST {')).length >= 2) {
          resolve();
        }
      });
    });
    await runPage(
      `http://127.0.0.1:${attackerPort}`,
      `http://127.0.0.1:${String(recorderPort)}/mcp`,
      marker,
    );
    await delivered;
  }, 120_000);
});
