import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicProtocol } from './anthropic-protocol.ts';
import type { Attempt } from './attempt.ts';
import { AttemptRecord } from './attempt-record.ts';
import { classifyToolResult } from './classify-tool-result.ts';
import { Conversation } from './conversation.ts';
import type { QueuedAttempt, Step } from './step.ts';
import type { ConversationHandle, ConversationScript } from './step-script.ts';
import { viewHistory, type RequestView } from './view-history.ts';
import { deliverFrames } from './deliver-frames.ts';
import { geminiProtocol } from './gemini-protocol.ts';
import { guardTestServerLogger } from './guard-test-server-logger.ts';
import { openAiProtocol } from './openai-protocol.ts';
import { responsesProtocol } from './responses-protocol.ts';
import {
  isProviderError,
  type ParsedRequest,
  type ProviderError,
  type ProviderProtocol,
} from './provider-protocol.ts';
import { ScriptError } from './script-error.ts';
import { SentState } from './sent-state.ts';
import type { ScriptedReply } from './scripted-reply.ts';
import type { TestServerLogger } from './test-server-logger.ts';

/** Options for {@link LlmTestServer}. */
export interface LlmTestServerOptions {
  /**
   * Answer broken tool history (a tool call with no result, an orphan result) with the
   * provider's own 400, as the real APIs do. Default `true`. Turn it off to let
   * `whenToolResult(…, 'missing')` steps match.
   */
  readonly strict?: boolean;
  /** When set, only this key is accepted; otherwise any non-empty key is. */
  readonly apiKey?: string;
  /** UTF-16 code units per tool-argument fragment in streams. Default 7. */
  readonly argumentSliceLength?: number;
  /** Largest accepted request body. Default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** A pino-compatible logger. Default: silent. */
  readonly logger?: TestServerLogger;
}

/** Options for {@link LlmTestServer.simulateContentFilter}. */
export interface ContentFilterOptions {
  /**
   * `http400` (default): reject the request with a 400 whose code is `content_filter`.
   * `finish_reason`: answer 200 with OpenAI `finish_reason: "content_filter"` / Anthropic
   * `stop_reason: "refusal"` and no content.
   */
  readonly style?: 'http400' | 'finish_reason';
}

/** The running server: its base URL and a `close()` that leaves no open handles. */
export interface RunningLlmTestServer {
  /** `http://127.0.0.1:<port>`. OpenAI clients use `${url}/v1` as base URL; Anthropic clients use `url`. */
  readonly url: string;
  /** Destroys every connection (stalled ones included) and stops listening. Safe to destructure. */
  readonly close: () => Promise<void>;
}

interface Route {
  readonly protocol: ProviderProtocol;
  readonly known: boolean;
}

// OpenAI last: it is the fallback shape for paths no provider claims.
const protocols: readonly ProviderProtocol[] = [
  anthropicProtocol,
  geminiProtocol,
  responsesProtocol,
  openAiProtocol,
];

function route(path: string): Route {
  const known = protocols.find((protocol) => protocol.matches(path));
  if (known !== undefined) return { protocol: known, known: true };
  // Answer unknown paths in the shape of the provider the path most resembles.
  return {
    protocol:
      protocols.find((protocol) => protocol.resembles(path)) ?? openAiProtocol,
    known: false,
  };
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) {
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return headers;
}

function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
      }
    });
    req.on('end', () => {
      resolve(size > limit ? 'too-large' : Buffer.concat(chunks));
    });
    req.on('error', () => {
      resolve('aborted');
    });
    req.on('close', () => {
      if (!req.complete) {
        resolve('aborted');
      }
    });
  });
}

function parseJson(raw: Buffer): {
  readonly ok: boolean;
  readonly value: unknown;
} {
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false, value: undefined };
  }
}

function mentions(request: ParsedRequest, term: string): boolean {
  const needle = term.toLowerCase();
  return request.history.some((event) => {
    const text =
      event.type === 'tool-result'
        ? (classifyToolResult({ content: event.content }).text ?? '')
        : event.text;
    return text.toLowerCase().includes(needle);
  });
}

function describe(view: RequestView): string {
  if (view.userText !== undefined) {
    return `latest user text ${JSON.stringify(view.userText.slice(0, 80))}`;
  }
  const results = [...view.results.entries()].map(
    ([callId, result]) => `${callId}=${classifyToolResult(result).kind}`,
  );
  return results.length > 0
    ? `latest tool results ${results.join(', ')}`
    : 'no user text or tool results after the last assistant turn';
}

function afterLoopTurn(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve);
  });
}

interface Rejection {
  readonly reason: string;
  readonly error: ProviderError;
}

interface Matched {
  readonly conversation: Conversation;
  readonly step: Step;
}

/** Everything needed to answer one matched request. */
interface Answer {
  readonly record: AttemptRecord;
  readonly res: ServerResponse;
  readonly protocol: ProviderProtocol;
  readonly request: ParsedRequest;
}

/**
 * A scripted LLM provider on a real `node:http` server: OpenAI Chat Completions and
 * Anthropic Messages, scripted conversations, provider errors, and delivery faults, with a
 * journal and stream controllers so tests wait on events instead of timers.
 *
 * @example
 * const server = new LlmTestServer();
 * server.conversation('hello', (c) => {
 *   c.step('greet').whenUser('hi').responds('Hello!').complete();
 * });
 * const { url, close } = await server.start();
 * // point a client at `${url}/v1` (OpenAI) or `url` (Anthropic), then:
 * server.assertNoUnmatched();
 * await close();
 */
export class LlmTestServer {
  readonly #strict: boolean;
  readonly #apiKey: string | undefined;
  readonly #argumentSliceLength: number;
  readonly #maxBodyBytes: number;
  readonly #logger: TestServerLogger;
  readonly #conversations: Conversation[] = [];
  readonly #filters: {
    readonly term: string;
    readonly style: 'http400' | 'finish_reason';
  }[] = [];
  readonly #journal: AttemptRecord[] = [];
  readonly #journalWaiters = new Map<number, (() => void)[]>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #sent = new SentState();
  #server: Server | undefined;
  #closing = false;

  constructor(options: LlmTestServerOptions = {}) {
    const slice = options.argumentSliceLength ?? 7;
    if (!Number.isInteger(slice) || slice < 1) {
      throw new RangeError(
        `argumentSliceLength must be a whole number >= 1, got ${slice}`,
      );
    }
    this.#strict = options.strict ?? true;
    this.#apiKey = options.apiKey;
    this.#argumentSliceLength = slice;
    this.#maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
    // Guarded: the server logs while answering, where a throw would cost the request its reply.
    this.#logger = guardTestServerLogger(options.logger);
  }

  /**
   * Defines a conversation. `define` declares its steps; the script is checked when it
   * returns, so a mistake throws a {@link ScriptError} naming the step right here.
   */
  conversation(
    name: string,
    define: (script: ConversationScript) => void,
  ): ConversationHandle {
    if (this.#conversations.some((existing) => existing.name === name)) {
      throw new ScriptError('duplicate conversation name', {
        conversation: name,
      });
    }
    const conversation = new Conversation(name, this.#strict);
    define(conversation);
    conversation.freeze();
    this.#conversations.push(conversation);
    return conversation;
  }

  /** Any request whose history mentions `term` (case-insensitive) is content-filtered. */
  simulateContentFilter(
    term: string,
    options: ContentFilterOptions = {},
  ): void {
    if (term === '') {
      throw new RangeError('simulateContentFilter needs a non-empty term');
    }
    this.#filters.push({ term, style: options.style ?? 'http400' });
  }

  /** Every request so far, in arrival order. */
  get journal(): readonly Attempt[] {
    return this.#journal;
  }

  /**
   * Resolves with the `n`th request (1-based) once it has been matched. A scripted delay or
   * stall has been armed by then, so the test can act on it at once.
   */
  waitForAttempt(n: number): Promise<Attempt> {
    const existing = this.#journal[n - 1];
    if (existing !== undefined) {
      return Promise.resolve(existing);
    }
    return new Promise((resolve) => {
      const waiters = this.#journalWaiters.get(n) ?? [];
      waiters.push(() => {
        const attempt = this.#journal[n - 1];
        if (attempt !== undefined) {
          resolve(attempt);
        }
      });
      this.#journalWaiters.set(n, waiters);
    });
  }

  /** Throws, listing them, if any request matched no step. */
  assertNoUnmatched(): void {
    const unmatched = this.#journal.filter(
      (entry) => entry.disposition === 'unmatched',
    );
    if (unmatched.length > 0) {
      throw new Error(
        `${unmatched.length} request(s) matched no scripted step:\n${unmatched
          .map(
            (entry) =>
              `  #${entry.number} ${entry.method} ${entry.path}: ${entry.reason ?? ''}`,
          )
          .join('\n')}`,
      );
    }
  }

  /** Starts listening on 127.0.0.1 on a free port. */
  async start(): Promise<RunningLlmTestServer> {
    if (this.#server !== undefined) {
      throw new Error('LlmTestServer.start() was already called');
    }
    const server = createServer((req, res) => {
      const handling = this.#handle(req, res).catch((error: unknown) => {
        this.#logger.warn(
          { err: error },
          'llm test server: request handler failed',
        );
        res.destroy();
      });
      this.#inFlight.add(handling);
      void handling.finally(() => this.#inFlight.delete(handling));
    });
    server.on('connection', (socket) => {
      socket.setNoDelay(true);
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => this.#close(server),
    };
  }

  async #close(server: Server): Promise<void> {
    this.#closing = true;
    const closed = new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
    server.closeAllConnections();
    await Promise.all([closed, ...this.#inFlight]);
    // libuv releases the listening handle in the close-callbacks phase that follows the
    // 'close' event; two check-phase turns later it is gone, so no handle outlives close().
    await afterLoopTurn();
    await afterLoopTurn();
  }

  #record(record: AttemptRecord): void {
    this.#journal.push(record);
    this.#logger.debug(
      {
        attempt: record.number,
        disposition: record.disposition,
        conversation: record.conversation,
        step: record.step,
        reason: record.reason,
      },
      'llm test server: request',
    );
    if (record.disposition !== 'matched') {
      this.#logger.warn(
        { attempt: record.number, path: record.path, reason: record.reason },
        `llm test server: ${record.disposition} request`,
      );
    }
    const waiters = this.#journalWaiters.get(record.number);
    this.#journalWaiters.delete(record.number);
    for (const waiter of waiters ?? []) {
      waiter();
    }
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, this.#maxBodyBytes);
    if (raw === 'aborted') {
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const { protocol, known } = route(path);
    const headers = flattenHeaders(req);
    const parsed =
      raw === 'too-large' ? { ok: false, value: undefined } : parseJson(raw);
    const record = new AttemptRecord({
      number: this.#journal.length + 1,
      provider: known ? protocol.provider : undefined,
      method: req.method ?? 'GET',
      path,
      headers,
      body: parsed.value,
      destroySocket: () => {
        res.destroy();
      },
    });
    res.on('close', () => {
      if (res.writableFinished) {
        record.settle('completed');
      } else if (record.isStalled) {
        record.settle('stalled');
      } else if (record.serverAborted || this.#closing) {
        record.settle('server-aborted');
      } else {
        record.settle('client-aborted');
      }
    });
    const accepted = this.#accept({
      req,
      raw,
      known,
      protocol,
      headers,
      parsed,
    });
    if ('rejection' in accepted) {
      this.#sendRejection({ record, res, protocol }, accepted.rejection);
      return;
    }
    const { request } = accepted;
    const answer: Answer = { record, res, protocol, request };
    const filter = this.#filters.find((candidate) =>
      mentions(request, candidate.term),
    );
    if (filter !== undefined) {
      await this.#answerContentFilter(answer, filter.style);
      return;
    }
    const view = viewHistory(request.history);
    const matched = this.#match(view);
    if (matched === undefined) {
      record.disposition = 'unmatched';
      record.reason = `no scripted step matches (${describe(view)})`;
      this.#record(record);
      this.#sendError(answer, {
        error: {
          status: 400,
          code: null,
          message: `candor LlmTestServer: no scripted step matches this request (${describe(view)})`,
        },
      });
      return;
    }
    await this.#answerStep(answer, matched);
  }

  /** The provider's own checks, in its order: path, auth, body, shape, tool history. */
  #accept(input: {
    readonly req: IncomingMessage;
    readonly raw: Buffer | 'too-large';
    readonly known: boolean;
    readonly protocol: ProviderProtocol;
    readonly headers: Readonly<Record<string, string>>;
    readonly parsed: { readonly ok: boolean; readonly value: unknown };
  }): { readonly request: ParsedRequest } | { readonly rejection: Rejection } {
    const reject = (reason: string, error: ProviderError) => ({
      rejection: { reason, error },
    });
    const { protocol } = input;
    if (!input.known || input.req.method !== 'POST') {
      return reject('unknown-path', {
        status: 404,
        code: protocol.codeFor(404),
        message: `Invalid URL (${input.req.method ?? 'GET'} ${input.req.url ?? '/'})`,
      });
    }
    const auth = protocol.checkAuth(input.headers, this.#apiKey);
    if (auth !== undefined) {
      return reject('auth', auth);
    }
    if (input.raw === 'too-large') {
      return reject('too-large', {
        status: 413,
        code: protocol.codeFor(413),
        message: 'Request exceeds the maximum allowed number of bytes.',
      });
    }
    if (!input.parsed.ok) {
      return reject('malformed-json', protocol.malformedBodyError());
    }
    const shaped = protocol.parse(
      input.parsed.value,
      (input.req.url ?? '/').split('?')[0] ?? '/',
      this.#sent,
    );
    if (isProviderError(shaped)) {
      return reject('invalid-request', shaped);
    }
    const history = this.#strict
      ? protocol.checkToolHistory(
          input.parsed.value,
          this.#sent,
          (input.req.url ?? '/').split('?')[0] ?? '/',
        )
      : undefined;
    if (history !== undefined) {
      return reject('strict-tool-history', history);
    }
    return { request: shaped };
  }

  #sendRejection(
    target: {
      readonly record: AttemptRecord;
      readonly res: ServerResponse;
      readonly protocol: ProviderProtocol;
    },
    rejection: Rejection,
  ): void {
    const { record } = target;
    record.disposition = 'rejected';
    record.reason = `${rejection.reason}: ${rejection.error.message}`;
    this.#record(record);
    this.#sendError(
      {
        ...target,
        request: { model: '', stream: false, includeUsage: false, history: [] },
      },
      { error: rejection.error },
    );
  }

  #sendError(
    answer: Answer,
    failure: {
      readonly error: ProviderError;
      readonly headers?: Readonly<Record<string, string>>;
    },
  ): void {
    const { record, res, protocol } = answer;
    const requestId = `req_${record.number}`;
    const body = JSON.stringify(protocol.errorBody(failure.error, requestId));
    res.writeHead(failure.error.status, {
      ...failure.headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      [protocol.requestIdHeader]: requestId,
    });
    record.status = failure.error.status;
    res.end(body, () => {
      record.recordWrite(Buffer.byteLength(body), [body]);
    });
  }

  async #answerContentFilter(
    answer: Answer,
    style: 'http400' | 'finish_reason',
  ): Promise<void> {
    const { record, protocol } = answer;
    record.disposition = 'rejected';
    record.reason = 'content-filter';
    this.#record(record);
    if (style === 'http400') {
      this.#sendError(answer, { error: protocol.contentFilterError() });
      return;
    }
    const reply: ScriptedReply = {
      text: undefined,
      toolCalls: [],
      finish: 'content_filter',
    };
    await this.#deliver(answer, reply, undefined);
  }

  #match(view: RequestView): Matched | undefined {
    for (const conversation of this.#conversations) {
      const step = conversation.match(view);
      if (step !== undefined) {
        return { conversation, step };
      }
    }
    return undefined;
  }

  async #answerStep(answer: Answer, matched: Matched): Promise<void> {
    const { record } = answer;
    const { conversation, step } = matched;
    const { attempt, position } = step.take();
    record.conversation = conversation.name;
    record.step = step.name;
    record.stepAttempt = position;
    if (attempt.kind === 'success' && step.completes) {
      conversation.markCompleted(record.number);
    }
    // The delay timer is armed before the journal entry is published, so a test that awaits
    // waitForAttempt() can act on the delay (advance fake timers, resume, abort) at once.
    const delay = this.#delay(answer, attempt);
    this.#record(record);
    if ((await delay) === 'closed') {
      if (!record.serverAborted && !this.#closing) {
        // The client gave up while waiting: the attempt goes back to the queue.
        record.consumed = false;
        step.giveBack(position);
        conversation.unmarkCompleted(record.number);
      }
      return;
    }
    await this.#serve(answer, step.reply, attempt);
  }

  #delay(
    answer: Answer,
    attempt: QueuedAttempt,
  ): Promise<'elapsed' | 'closed'> {
    const { record, res } = answer;
    if (attempt.delayMs === 0) {
      return Promise.resolve('elapsed');
    }
    return new Promise((resolve) => {
      const finish = (result: 'elapsed' | 'closed'): void => {
        clearTimeout(timer);
        res.off('close', onClose);
        resolve(result);
      };
      const onClose = (): void => {
        finish('closed');
      };
      const timer = setTimeout(() => {
        finish('elapsed');
      }, attempt.delayMs);
      res.on('close', onClose);
      record.onResume(() => {
        finish(res.destroyed ? 'closed' : 'elapsed');
      });
    });
  }

  async #serve(
    answer: Answer,
    reply: ScriptedReply,
    attempt: QueuedAttempt,
  ): Promise<void> {
    switch (attempt.kind) {
      case 'fail':
        this.#sendError(answer, {
          error: attempt.error,
          headers: attempt.headers,
        });
        return;
      case 'fault':
        await this.#deliver(answer, reply, attempt);
        return;
      case 'success':
        await this.#deliver(answer, reply, undefined);
        return;
    }
  }

  async #deliver(
    answer: Answer,
    reply: ScriptedReply,
    attempt: (QueuedAttempt & { readonly kind: 'fault' }) | undefined,
  ): Promise<void> {
    const { record, res, protocol, request } = answer;
    const fault = attempt?.fault;
    if (fault?.kind === 'reset-before-headers') {
      record.serverAborted = true;
      res.socket?.resetAndDestroy();
      return;
    }
    const rendered = protocol.render(reply, {
      request,
      sequence: record.number,
      argumentSliceLength: this.#argumentSliceLength,
      sent: this.#sent,
    });
    await deliverFrames({
      res,
      record,
      protocol,
      rendered,
      fault,
      requestId: `req_${record.number}`,
    });
  }
}
