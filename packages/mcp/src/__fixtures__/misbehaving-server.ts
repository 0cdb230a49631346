// A real MCP server, written with the official SDK, that misbehaves on purpose. Run as its own
// process over stdio.
/* eslint-disable @typescript-eslint/no-deprecated -- the low-level Server lets it misbehave */
import {
  type CallToolResult,
  type JSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const MANGLE = '__mangle_this_result__';
const WRONG_ID = '__answer_with_a_wrong_id__';
const NULL_RESULT = '__answer_with_a_null_result__';
const STRING_RESULT = '__answer_with_a_string_result__';
const BAD_BLOCK = '__answer_with_a_bad_content_block__';
const HUGE_CHARS = 1_000_000;
let cancelled = 0;
let reached = 0;
let extraTool = false;

const tools = (): Tool[] => [
  {
    name: 'echo',
    description: 'Echoes a message',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', minLength: 1 } },
      required: ['message'],
      additionalProperties: false,
    },
    annotations: { idempotentHint: true },
  },
  ...[
    'throws',
    'is_error',
    'rate_limited',
    'invalid',
    'hangs',
    'exits',
    'empty',
    'add_tool',
    'remove_tool',
    'stats',
    'not_found',
    'bad_params',
    'says_teapot',
    'says_error_without_code',
    'says_done',
    'says_success_with_rows',
    'is_error_says_success',
    'is_error_says_partial',
    'wrong_id',
    'null_result',
    'string_result',
    'bad_block',
    'huge',
  ].map((name) => ({
    name,
    description: name,
    inputSchema: { type: 'object' as const },
  })),
  ...(extraTool
    ? [
        {
          name: 'extra.tool',
          description: 'added later',
          inputSchema: { type: 'object' as const },
        },
      ]
    : []),
];

const server = new Server(
  { name: 'misbehaving', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);
server.setRequestHandler('tools/list', () => ({ tools: tools() }));
server.setRequestHandler('tools/call', async (request, context) => {
  reached += 1;
  const text = (value: string): CallToolResult => ({
    content: [{ type: 'text', text: value }],
  });
  switch (request.params.name) {
    case 'echo': {
      const message = String(request.params.arguments?.['message']);
      // An echo still in flight when the process exits: it never answers.
      if (message === 'wait')
        return new Promise<CallToolResult>(() => undefined);
      return text(message);
    }
    case 'throws':
      throw new Error('the tool blew up');
    case 'is_error':
      return { ...text('the disk is full'), isError: true };
    case 'rate_limited':
      return {
        ...text('slow down'),
        isError: true,
        structuredContent: {
          status: 'error',
          code: 'RATE_LIMIT',
          retryable: true,
          retryAfterMs: 1500,
        },
      };
    case 'invalid':
      return text(MANGLE);
    case 'not_found':
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'no such tool');
    case 'bad_params':
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'bad params');
    case 'wrong_id':
      return text(WRONG_ID);
    case 'null_result':
      return text(NULL_RESULT);
    case 'string_result':
      return text(STRING_RESULT);
    case 'bad_block':
      return text(BAD_BLOCK);
    case 'huge':
      return text('x'.repeat(HUGE_CHARS));
    // Envelopes that contradict `isError` or use words Candor does not know.
    case 'says_teapot':
      return {
        ...text('short and stout'),
        isError: false,
        structuredContent: { status: 'error', code: 'TEAPOT' },
      };
    case 'says_error_without_code':
      return {
        ...text('it went wrong'),
        isError: false,
        structuredContent: { status: 'error' },
      };
    case 'says_done':
      return {
        ...text('finished?'),
        isError: false,
        structuredContent: { status: 'done', data: { rows: 3 } },
      };
    case 'says_success_with_rows':
      return {
        ...text('two rows'),
        structuredContent: { status: 'success', rows: [1, 2], total: 2 },
      };
    case 'is_error_says_success':
      return {
        ...text('all good'),
        isError: true,
        structuredContent: { status: 'success', data: { rows: 3 } },
      };
    case 'is_error_says_partial':
      return {
        ...text('half'),
        isError: true,
        structuredContent: { status: 'partial', reason: 'truncated' },
      };
    case 'hangs':
      return new Promise<CallToolResult>((resolve) => {
        context.mcpReq.signal.addEventListener('abort', () => {
          cancelled += 1;
          resolve(text('cancelled'));
        });
      });
    case 'exits':
      process.exit(3);
      break;
    case 'empty':
      return { content: [] };
    case 'add_tool':
      extraTool = true;
      await server.sendToolListChanged();
      return text('added');
    case 'remove_tool':
      extraTool = false;
      await server.sendToolListChanged();
      return text('removed');
    case 'stats':
      return {
        ...text('stats'),
        structuredContent: { cancelled, reached, pid: process.pid },
      };
    default:
      return text('unknown');
  }
});

// The SDK checks results before sending them; this transport breaks one on the way out, as a
// buggy or hostile server would.
class ManglingTransport extends StdioServerTransport {
  override send(message: JSONRPCMessage): Promise<void> {
    const json = JSON.stringify(message);
    if (json.includes(MANGLE)) {
      return super.send({ ...message, result: { content: 'not a list' } });
    }
    // Results that are not objects: the SDK drops such a frame as not JSON-RPC at all.
    if (json.includes(NULL_RESULT)) {
      return super.send({ ...message, result: null } as never);
    }
    if (json.includes(STRING_RESULT)) {
      return super.send({ ...message, result: 'done' } as never);
    }
    // One content block of no known type: zod's union reports every member it tried.
    if (json.includes(BAD_BLOCK)) {
      return super.send({
        ...message,
        result: { content: [{ type: 'bogus', text: 1 }] },
      });
    }
    // A result for a request that was never made: the real one never comes.
    if (json.includes(WRONG_ID) && 'id' in message) {
      return super.send({ ...message, id: 987_654 });
    }
    return super.send(message);
  }
}

await server.connect(new ManglingTransport());
