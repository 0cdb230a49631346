import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BUILTIN_ANNOTATIONS, registerBuiltins } from '@candor/builtins';
import { ToolRegistry } from '@candor/registry';
import { serveRegistry } from './serve-registry.ts';

const USAGE = `Usage: candor-mcp [--workspace DIR] [--http [--host H] [--port N] [--token T] ...]

Serves Candor's built-in tools (read_file, write_file, list_dir, search, shell, http_fetch,
calculator) over MCP: on stdin/stdout by default, or Streamable HTTP with --http.
  --workspace DIR  the folder every path and shell command stays inside (default: the cwd)
  --http           serve http://127.0.0.1:PORT/mcp instead of stdio
  --host H         bind to H instead of 127.0.0.1
  --port N         listen on N (default: any free port, printed on stderr)
  --token T        require "Authorization: Bearer T" (or set CANDOR_MCP_TOKEN)
  --allow-host H   a Host name clients may use besides localhost, 127.0.0.1, [::1] (repeatable)
  --allow-origin O a web page origin's hostname allowed to call besides the loopback names
                   (repeatable)
  --fetch-allow E  an internal host, host:port, IP or CIDR http_fetch may reach (repeatable;
                   by default it reaches public addresses only)
  --allow-shell-and-writes-without-token
                   serve shell, write_file and http_fetch over HTTP without --token; without
                   it (and without a token) only read_file, list_dir, search, calculator
`;

/** The streams {@link runServeBuiltins} writes its messages to. */
export interface CliStreams {
  readonly stderr: NodeJS.WritableStream;
}

/**
 * The `candor-mcp` command: parses the arguments and serves the built-in tools. Resolves with the
 * exit code for bad arguments, or with `undefined` once serving (the process then lives on).
 */
export async function runServeBuiltins(
  argv: readonly string[],
  streams: CliStreams,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | undefined> {
  const fail = (message: string): number => {
    streams.stderr.write(`candor-mcp: ${message}\n`);
    return 2;
  };
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        workspace: { type: 'string' },
        http: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string' },
        'allow-host': { type: 'string', multiple: true },
        'allow-origin': { type: 'string', multiple: true },
        'fetch-allow': { type: 'string', multiple: true },
        'allow-shell-and-writes-without-token': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error: unknown) {
    return fail(
      `${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`,
    );
  }
  if (values.help === true) {
    streams.stderr.write(USAGE);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    return fail(
      `--port must be a port number, got ${JSON.stringify(values.port)}`,
    );
  }
  // `--token "$CANDOR_MCP_TOKEN"` with the variable unset, or the variable set to nothing:
  // serving without a check would be the opposite of what was asked.
  if (values.token === '') {
    return fail('--token is empty (is the variable you passed set?)');
  }
  const fromEnv = env['CANDOR_MCP_TOKEN'];
  if (values.token === undefined && fromEnv === '') {
    return fail(
      'CANDOR_MCP_TOKEN is set but empty; set it to the token, or unset it to serve without one',
    );
  }
  const workspace = resolve(values.workspace ?? process.cwd());
  const unusable = await workspaceProblem(workspace);
  if (unusable !== undefined) return fail(unusable);

  const registry = new ToolRegistry();
  try {
    registerBuiltins(registry, {
      root: workspace,
      ...(values['fetch-allow'] === undefined
        ? {}
        : { httpFetch: { allowHosts: values['fetch-allow'] } }),
    });
  } catch (error: unknown) {
    // A bad --fetch-allow entry: httpFetchTool's TypeError names what it takes.
    return fail(error instanceof Error ? error.message : String(error));
  }
  const common = { toolAnnotations: BUILTIN_ANNOTATIONS };
  if (values.http !== true) {
    await serveRegistry(registry, { transport: 'stdio', ...common });
    // stdout is the protocol's: one line on stderr says the server is up, and where it works.
    streams.stderr.write(
      `candor-mcp: serving on stdio, workspace ${workspace}\n`,
    );
    return undefined;
  }
  const token = values.token ?? fromEnv;
  const allowWrites = values['allow-shell-and-writes-without-token'] === true;
  const service = await serveRegistry(registry, {
    transport: 'http',
    ...common,
    ...(values.host === undefined ? {} : { host: values.host }),
    port,
    ...(token === undefined ? {} : { bearerToken: token }),
    ...(values['allow-host'] === undefined
      ? {}
      : {
          allowedHosts: [
            'localhost',
            '127.0.0.1',
            '[::1]',
            ...values['allow-host'],
          ],
        }),
    ...(values['allow-origin'] === undefined
      ? {}
      : {
          allowedOrigins: [
            'localhost',
            '127.0.0.1',
            '[::1]',
            ...values['allow-origin'],
          ],
        }),
    allowWritesWithoutToken: allowWrites,
  });
  if (token === undefined && !allowWrites) {
    streams.stderr.write(
      'candor-mcp: no --token, so only read-only tools are served (read_file, list_dir, search, calculator); ' +
        'pass --token, or --allow-shell-and-writes-without-token\n',
    );
  }
  streams.stderr.write(`candor-mcp: serving ${String(service.url)}\n`);
  return undefined;
}

/** Why `dir` cannot be the workspace, or undefined when it can. */
async function workspaceProblem(dir: string): Promise<string | undefined> {
  try {
    if (!(await stat(dir)).isDirectory()) {
      return `--workspace ${dir} is not a folder`;
    }
    await access(dir, constants.R_OK | constants.X_OK);
    return undefined;
  } catch (error: unknown) {
    const code = (error as { code?: unknown }).code;
    return code === 'ENOENT'
      ? `--workspace ${dir} does not exist`
      : `--workspace ${dir} cannot be read (${String(code)})`;
  }
}
