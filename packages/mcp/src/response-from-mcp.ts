import {
  describeThrown,
  readForeign,
  snapshotJson,
  type ToolErrorCode,
} from '@candor/errors';
import { ToolResponse } from '@candor/tools';
import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import { issuesInMessage, summariseIssues } from './invalid-result-summary.ts';
import { readOutcomeClaim } from './outcome-envelope.ts';

/**
 * A `CallToolResult` (or whatever a server sent in its place) as a `ToolResponse`. `isError`
 * decides error or not; a Candor envelope in `structuredContent` restores the exact status, code,
 * retryability and denial; an empty `content` list is a success with empty text; anything that is
 * not a `CallToolResult` is INTERNAL_ERROR, never a success.
 */
export function responseFromMcp(
  result: unknown,
  toolName: string,
): ToolResponse {
  // A getter or Proxy that throws: this is exported, so callers can hand it anything.
  const read = readForeign(() => readResult(result, toolName));
  return read.ok
    ? read.value
    : invalid(toolName, `reading it threw: ${describeThrown(read.error)}`);
}

function readResult(result: unknown, toolName: string): ToolResponse {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    return invalid(toolName, 'it is not an object');
  }
  const {
    content,
    isError,
    structuredContent: given,
  } = result as Record<string, unknown>;
  // Read once into a plain copy, which the claim and the response's data both use: a live
  // object passed on as data would be read again by whoever serialises the response, where a
  // trap that throws, a cycle or a BigInt would surface after a success had been returned.
  const snapshot = snapshotJson(given);
  if (!snapshot.ok) {
    return invalid(
      toolName,
      `\`structuredContent\` cannot be read as JSON (${snapshot.reason})`,
    );
  }
  const structuredContent = snapshot.value;
  if (!Array.isArray(content)) {
    return invalid(toolName, '`content` is not a list');
  }
  if (isError !== undefined && typeof isError !== 'boolean') {
    return invalid(toolName, '`isError` is not a boolean');
  }
  const text = contentText(content);
  const claim = readOutcomeClaim(structuredContent);
  const envelope = claim.kind === 'envelope' ? claim.envelope : undefined;
  if (envelope?.denied === true) {
    return ToolResponse.denied(
      envelope.message ?? (text || `The call to "${toolName}" was refused.`),
    );
  }
  // Either side saying error is an error: a contradiction is never read as success.
  if (isError === true || envelope?.status === 'error') {
    const code: ToolErrorCode = envelope?.code ?? 'EXECUTION_ERROR';
    const foreignCode =
      claim.kind === 'envelope' ? claim.foreignCode : undefined;
    const said =
      envelope?.message ??
      (text.trim() === ''
        ? `The MCP tool "${toolName}" reported an error without a message.`
        : text);
    const message =
      foreignCode === undefined
        ? said
        : `${said} (the server's error code "${foreignCode}" is not a Candor code)`;
    return ToolResponse.error(code, message, {
      ...(envelope?.retryable === undefined
        ? {}
        : { retryable: envelope.retryable }),
      ...(envelope?.retryAfterMs === undefined
        ? {}
        : { retryAfterMs: envelope.retryAfterMs }),
      ...(envelope?.cancelled === true ? { cancelled: true } : {}),
      ...(foreignCode === undefined
        ? {}
        : { details: { mcpCode: foreignCode } }),
      ...(claim.kind === 'envelope' && claim.foreignFields
        ? { data: structuredContent }
        : envelope !== undefined && 'data' in envelope
          ? { data: envelope.data }
          : {}),
    });
  }
  // A status word Candor does not know, or a success or partial carrying an error code: the
  // outcome is unknown, and unknown is not success. PARTIAL keeps what the server said for the
  // model without counting it as a failure of the tool.
  if (claim.kind === 'unrecognised' || envelope?.code !== undefined) {
    return ToolResponse.partial(text, {
      reason:
        claim.kind === 'unrecognised'
          ? 'unrecognised_status'
          : 'contradictory_status',
      data: structuredContent,
    });
  }
  if (envelope === undefined) {
    return ToolResponse.success(
      text,
      structuredContent === undefined ? {} : { data: structuredContent },
    );
  }
  // Fields an envelope does not name are a foreign server's data: kept whole, never dropped.
  const data =
    claim.kind === 'envelope' && claim.foreignFields
      ? { data: structuredContent }
      : 'data' in envelope
        ? { data: envelope.data }
        : {};
  if (envelope.status === 'partial') {
    return ToolResponse.partial(envelope.text ?? text, {
      reason: envelope.reason ?? 'unknown',
      ...data,
    });
  }
  return ToolResponse.success(text, data);
}

/** What a failed `callTool` threw, as a response: JSON-RPC errors by code, transport failures. */
export function responseFromThrown(
  error: unknown,
  toolName: string,
): ToolResponse {
  if (error instanceof ProtocolError) {
    const code = protocolCode(error.code);
    return ToolResponse.error(
      code,
      `The MCP server answered "${toolName}" with JSON-RPC error ${error.code}: ${error.message}`,
    );
  }
  if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
      case SdkErrorCode.SendFailed:
        return ToolResponse.error(
          'NETWORK_ERROR',
          `The connection to the MCP server was lost during "${toolName}": ${error.message}`,
        );
      case SdkErrorCode.RequestTimeout:
        return ToolResponse.error(
          'TIMEOUT',
          `The MCP server did not answer "${toolName}" in time.`,
        );
      case SdkErrorCode.InvalidResult:
      case SdkErrorCode.UnsupportedResultType: {
        // The SDK's message carries every zod issue; the model reads the first and a count.
        const issues = issuesInMessage(error.message);
        return invalid(
          toolName,
          issues === undefined ? error.message : summariseIssues(issues),
        );
      }
      case SdkErrorCode.AlreadyConnected:
      case SdkErrorCode.CapabilityNotSupported:
      case SdkErrorCode.ClientHttpAuthentication:
      case SdkErrorCode.ClientHttpFailedToOpenStream:
      case SdkErrorCode.ClientHttpFailedToTerminateSession:
      case SdkErrorCode.ClientHttpForbidden:
      case SdkErrorCode.ClientHttpNotImplemented:
      case SdkErrorCode.ClientHttpUnexpectedContent:
      case SdkErrorCode.EraNegotiationFailed:
      case SdkErrorCode.InputRequiredRoundsExceeded:
      case SdkErrorCode.ListPaginationExceeded:
      case SdkErrorCode.MethodNotSupportedByProtocolVersion:
      case SdkErrorCode.NotInitialized:
        return ToolResponse.error(
          'INTERNAL_ERROR',
          `The MCP client failed on "${toolName}": ${error.message}`,
        );
    }
  }
  // Anything else came from the transport itself (the SDK wraps what the server said): a
  // refused connection, a reset socket, a dead child, `fetch failed`. A timeout stays a timeout.
  const thrown = ToolResponse.fromThrown(error);
  if (thrown.errorInfo.code === 'TIMEOUT') return thrown;
  return ToolResponse.error(
    'NETWORK_ERROR',
    `The MCP transport failed during "${toolName}": ${error instanceof Error ? error.message : String(error)}`,
  );
}

const protocolCodes: ReadonlyMap<number, ToolErrorCode> = new Map([
  [ProtocolErrorCode.MethodNotFound, 'NOT_FOUND'],
  [ProtocolErrorCode.InvalidParams, 'INVALID_PARAM'],
  [ProtocolErrorCode.InternalError, 'INTERNAL_ERROR'],
  [ProtocolErrorCode.ParseError, 'INTERNAL_ERROR'],
  [ProtocolErrorCode.InvalidRequest, 'INTERNAL_ERROR'],
]);

// Any other JSON-RPC error is the server's own: it failed to run the tool.
function protocolCode(code: number): ToolErrorCode {
  return protocolCodes.get(code) ?? 'EXECUTION_ERROR';
}

function invalid(toolName: string, why: string): ToolResponse {
  return ToolResponse.error(
    'INTERNAL_ERROR',
    `The MCP server sent "${toolName}" a result that is not a valid CallToolResult: ${why}`,
  );
}

function contentText(content: readonly unknown[]): string {
  return content
    .map((block) => {
      if (typeof block !== 'object' || block === null) return '';
      const { type, text, mimeType, uri, resource } = block as Record<
        string,
        unknown
      >;
      if (type === 'text' && typeof text === 'string') return text;
      if (type === 'resource_link' && typeof uri === 'string')
        return `[resource: ${uri}]`;
      if (type === 'resource' && typeof resource === 'object' && resource) {
        // Each field read once: a live object's getter cannot answer a string, then another.
        const { text: innerText, uri: innerUri } = resource as Record<
          string,
          unknown
        >;
        return typeof innerText === 'string'
          ? innerText
          : `[resource: ${String(innerUri)}]`;
      }
      return `[${String(type)}${typeof mimeType === 'string' ? `: ${mimeType}` : ''}]`;
    })
    .join('\n');
}
