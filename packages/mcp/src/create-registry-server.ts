import { type ToolRegistry } from '@candor/registry';
import {
  guardLogger,
  type JsonSchema,
  ToolResponse,
  toolResultForModel,
} from '@candor/tools';
import {
  type CallToolResult,
  Server,
  type Tool,
} from '@modelcontextprotocol/server';
import { checkElicitApproval, elicitApprover } from './elicit-approval.ts';
import { outcomeEnvelope, outcomeEnvelopeSchema } from './outcome-envelope.ts';
import { progressSender } from './progress-sender.ts';
import { resolveAnnotations } from './resolved-annotations.ts';
import { type ServeOptions } from './serve-options.ts';

const DEFAULT_NAME = 'candor';
const DEFAULT_VERSION = '0.0.0';

/** What `serveRegistry` adds to the public options of a server it makes. */
export interface RegistryServerScope {
  /** Cancels every call this server runs (an HTTP request that closed). */
  readonly signal?: AbortSignal | undefined;
  /** Why a tool is not served here, or undefined when it is (HTTP without a token). */
  readonly refusal?: ((name: string) => string | undefined) | undefined;
}

/**
 * One MCP `Server` (low-level SDK class) whose tools are the registry's: for hosts that bring
 * their own transport. {@link serveRegistry} makes one per connection (stdio) or request (HTTP).
 * `signal`, when given, cancels every call this server runs (an HTTP request that closed).
 */
export function createRegistryServer(
  registry: ToolRegistry,
  options: ServeOptions = {},
  signal?: AbortSignal,
  // eslint-disable-next-line @typescript-eslint/no-deprecated
): Server {
  return registryServer(registry, options, { signal });
}

/** {@link createRegistryServer} with the scope `serveRegistry` gives it. */
export function registryServer(
  registry: ToolRegistry,
  options: ServeOptions,
  scope: RegistryServerScope,
  // eslint-disable-next-line @typescript-eslint/no-deprecated
): Server {
  checkElicitApproval(options.elicitApproval);
  const logger = guardLogger(options.logger);
  const { signal, refusal } = scope;
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const server = new Server(
    {
      name: options.name ?? DEFAULT_NAME,
      version: options.version ?? DEFAULT_VERSION,
    },
    { capabilities: { tools: { listChanged: true } } },
  );
  const outputSchema = outcomeEnvelopeSchema() as Tool['outputSchema'];
  // Per declared output schema (specs() hands out the same frozen object each time).
  const envelopes = new WeakMap<object, Tool['outputSchema']>();
  const envelopeFor = (
    dataSchema: JsonSchema | undefined,
  ): Tool['outputSchema'] => {
    if (dataSchema === undefined) return outputSchema;
    let envelope = envelopes.get(dataSchema);
    if (envelope === undefined) {
      envelope = outcomeEnvelopeSchema(dataSchema);
      envelopes.set(dataSchema, envelope);
    }
    return envelope;
  };
  server.setRequestHandler('tools/list', () => {
    const annotations = resolveAnnotations(
      registry.list(),
      options.toolAnnotations,
    );
    const tools: Tool[] = registry
      .specs({
        format: 'json-schema',
        hideOpenCircuits: options.hideOpenCircuits === true,
      })
      .filter((spec) => refusal?.(spec.name) === undefined)
      .map((spec) => ({
        name: spec.name,
        description: spec.description,
        // specs() gives object schemas: defineTool refuses any other input.
        inputSchema: spec.inputSchema as Tool['inputSchema'],
        outputSchema: envelopeFor(spec.outputSchema),
        annotations: annotations.get(spec.name) ?? {},
      }));
    return { tools };
  });
  server.setRequestHandler('tools/call', async (request, context) => {
    const { name, arguments: args } = request.params;
    const refused = refusal?.(name);
    const progress =
      refused === undefined ? progressSender(context, logger) : undefined;
    const approve =
      options.elicitApproval === undefined
        ? undefined
        : elicitApprover(server, context, options.elicitApproval);
    const response =
      refused === undefined
        ? await registry.call(name, args ?? {}, {
            ...(approve === undefined ? {} : { approve }),
            signal:
              signal === undefined
                ? context.mcpReq.signal
                : AbortSignal.any([signal, context.mcpReq.signal]),
            ...(progress === undefined ? {} : { onProgress: progress.send }),
          })
        : ToolResponse.error('ACCESS_DENIED', refused);
    await progress?.end();
    const { content, isError } = toolResultForModel(response, name);
    const result: CallToolResult = {
      content: [{ type: 'text', text: content }],
      structuredContent: { ...outcomeEnvelope(response) },
      isError,
    };
    // Every envelope has an object root, so the generic one projects the same as the tool's.
    return server.projectCallToolResult(result, outputSchema);
  });
  return server;
}
