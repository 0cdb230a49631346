import {
  type ApprovalDecision,
  type ApprovalGate,
  type ApprovalRequest,
  type CallOptions,
} from '@candor/registry';
import {
  type ElicitResult,
  SdkError,
  SdkErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';

/**
 * Asking the person at the MCP client to approve calls, through MCP elicitation
 * (`elicitation/create`, protocol revisions 2025-06-18 and 2025-11-25).
 */
export interface ElicitApprovalOptions {
  /**
   * Which calls to ask about; every call unless set. The others, like every call from a client
   * that cannot be asked, go to the registry's own approval gate. A throw is the gate failing:
   * INTERNAL_ERROR, the tool not run.
   */
  readonly when?: (request: ApprovalRequest) => boolean | Promise<boolean>;
  /**
   * How long to wait for the answer, in milliseconds: 600 000 unless set (a person answers, so
   * the SDK's 60-second request default is too short). No answer in time is a denial.
   */
  readonly timeoutMs?: number;
}

/** 10 minutes: the SDK's own default for a human-paced input request. */
const DEFAULT_TIMEOUT_MS = 600_000;
/**
 * The first revision without server-to-client requests (it asks with `input_required` results
 * instead). Revisions are ISO dates, so they compare as strings.
 */
const FIRST_MODERN_REVISION = '2026-07-28';
/** How much of a failed request's message a denial repeats (SDK messages can hold zod dumps). */
const MAX_SHOWN_FAILURE = 300;
/** How much of the arguments the question shows. */
const MAX_SHOWN_ARGUMENTS = 1_000;

/**
 * The per-call approval hook that asks this call's client, or `undefined` when the client cannot
 * be asked (no `elicitation` capability for forms, or a 2026-07-28-era request, which has no
 * server-to-client requests): then the registry's gate decides alone.
 *
 * Only an `accept` with no content (or an empty object: the question asks for no fields) runs
 * the call. `decline`, `cancel`, an answer with fields nobody asked for, an answer that is not a
 * valid `ElicitResult`, a failed request, no answer within `timeoutMs`, and the call's own
 * cancellation all refuse it, each with its reason: the tool did not run because nobody
 * approved it, which is what a denial says.
 */
export function elicitApprover(
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  server: Server,
  context: ServerContext,
  options: ElicitApprovalOptions | true,
): CallOptions['approve'] {
  if (!canElicitForm(server)) return undefined;
  const { when, timeoutMs = DEFAULT_TIMEOUT_MS } =
    options === true ? {} : options;
  return async (
    request: ApprovalRequest,
    gate: ApprovalGate,
  ): Promise<ApprovalDecision> => {
    if (when !== undefined && !(await when(request))) return gate(request);
    const signal = context.mcpReq.signal;
    let answer: ElicitResult;
    try {
      answer = await context.mcpReq.send(
        {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: question(request),
            requestedSchema: { type: 'object', properties: {} },
          },
        },
        { timeout: timeoutMs, signal },
      );
    } catch (error: unknown) {
      return refused(failure(error, signal, timeoutMs));
    }
    return decisionOf(answer);
  };
}

/** Throws a `TypeError` for options that cannot work, when the server is made, not per call. */
export function checkElicitApproval(options: unknown): void {
  if (options === undefined || options === true) return;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('elicitApproval must be true or { when?, timeoutMs? }');
  }
  const { when, timeoutMs } = options as Record<string, unknown>;
  if (when !== undefined && typeof when !== 'function') {
    throw new TypeError('elicitApproval.when must be a function');
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' ||
      !Number.isFinite(timeoutMs) ||
      timeoutMs <= 0)
  ) {
    throw new TypeError(
      `elicitApproval.timeoutMs must be a positive number of milliseconds (got ${typeof timeoutMs === 'number' ? String(timeoutMs) : typeof timeoutMs})`,
    );
  }
}

/** A 2025-era client that declared form elicitation (a bare `elicitation: {}` means forms). */
// eslint-disable-next-line @typescript-eslint/no-deprecated
function canElicitForm(server: Server): boolean {
  // Both accessors are deprecated for the 2026-07-28 era, which is ruled out here first; on a
  // 2025-era connection they return what the client said at `initialize`.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const version = server.getNegotiatedProtocolVersion();
  if (version === undefined || version >= FIRST_MODERN_REVISION) return false;
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const elicitation = server.getClientCapabilities()?.elicitation;
  if (typeof elicitation !== 'object') return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

function question(request: ApprovalRequest): string {
  let shown: string;
  try {
    // undefined for arguments that are not JSON (the registry shows only JSON values).
    const json = JSON.stringify(request.params) as unknown;
    shown = typeof json === 'string' ? json : '(none)';
  } catch {
    shown = '(not shown)';
  }
  if (shown.length > MAX_SHOWN_ARGUMENTS) {
    shown = `${shown.slice(0, MAX_SHOWN_ARGUMENTS)}… (${shown.length} characters)`;
  }
  return `Allow the tool "${request.toolName}" to run with these arguments?\n${shown}`;
}

function decisionOf(answer: ElicitResult): ApprovalDecision {
  switch (answer.action) {
    case 'accept': {
      const content: unknown = answer.content;
      if (
        content === undefined ||
        (typeof content === 'object' &&
          content !== null &&
          Object.keys(content).length === 0)
      ) {
        return true;
      }
      return refused(
        'the MCP client accepted with fields the question did not ask for, so it is not read as an approval',
      );
    }
    case 'decline':
      return refused('the person at the MCP client declined it');
    case 'cancel':
      return refused('the person at the MCP client dismissed the question');
    default:
      return refused('the MCP client gave an answer that is not accept');
  }
}

function failure(
  error: unknown,
  signal: AbortSignal,
  timeoutMs: number,
): string {
  if (signal.aborted)
    return 'the call was cancelled while waiting for approval';
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return `the MCP client did not answer the approval question within ${timeoutMs} ms`;
  }
  const message = (error instanceof Error ? error.message : String(error))
    .replace(/\s+/g, ' ')
    .slice(0, MAX_SHOWN_FAILURE);
  return `asking the MCP client for approval failed: ${message}`;
}

function refused(reason: string): ApprovalDecision {
  return { approved: false, reason };
}
