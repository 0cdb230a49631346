import { guardLogger, type Logger } from '@candor/errors';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { acceptRequest, type Rejection } from './accept-request.ts';
import type { Attempt } from './attempt.ts';
import { AttemptJournal } from './attempt-journal.ts';
import { AttemptRecord } from './attempt-record.ts';
import { Conversation } from './conversation.ts';
import { deliverFrames } from './deliver-frames.ts';
import { describeView, mentions } from './describe-request.ts';
import type {
  ContentFilterOptions,
  LlmTestServerOptions,
  RunningLlmTestServer,
} from './llm-test-server-options.ts';
import type { ProviderProtocol } from './provider-protocol.ts';
import { flattenHeaders, parseJson, readBody } from './read-request.ts';
import { route } from './route-request.ts';
import { ScriptError } from './script-error.ts';
import type { ScriptedReply } from './scripted-reply.ts';
import { sendError, type Answer } from './send-error.ts';
import { SentState } from './sent-state.ts';
import type { QueuedAttempt, Step } from './step.ts';
import type { ConversationHandle, ConversationScript } from './step-script.ts';
import type { TestServerLogger } from './test-server-logger.ts';
import { viewHistory, type RequestView } from './view-history.ts';
import { waitForDelay } from './wait-for-delay.ts';

export type {
  ContentFilterOptions,
  LlmTestServerOptions,
  RunningLlmTestServer,
} from './llm-test-server-options.ts';

function afterLoopTurn(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve);
  });
}

interface Matched {
  readonly conversation: Conversation;
  readonly step: Step;
}

/**
 * A scripted LLM provider on a real `node:http` server: OpenAI Chat Completions and Responses,
 * Anthropic Messages and Gemini, scripted conversations with the vendors' reasoning state and
 * strict rules, provider errors, and delivery faults, with a
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
  readonly #journal: AttemptJournal;
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
    // The one guard of every package: the guard reads each method on each line, so the levels a
    // `TestServerLogger` lacks are lines dropped, not errors.
    this.#logger = guardLogger(options.logger as Logger | undefined);
    this.#journal = new AttemptJournal(this.#logger);
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
    return this.#journal.entries;
  }

  /**
   * Resolves with the `n`th request (1-based) once it has been matched. A scripted delay or
   * stall has been armed by then, so the test can act on it at once.
   */
  waitForAttempt(n: number): Promise<Attempt> {
    return this.#journal.waitForAttempt(n);
  }

  /** Throws, listing them, if any request matched no step. */
  assertNoUnmatched(): void {
    this.#journal.assertNoUnmatched();
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
      number: this.#journal.nextNumber,
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
    const accepted = acceptRequest({
      apiKey: this.#apiKey,
      strict: this.#strict,
      sent: this.#sent,
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
      record.reason = `no scripted step matches (${describeView(view)})`;
      this.#journal.record(record);
      sendError(answer, {
        error: {
          status: 400,
          code: null,
          message: `candor LlmTestServer: no scripted step matches this request (${describeView(view)})`,
        },
      });
      return;
    }
    await this.#answerStep(answer, matched);
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
    this.#journal.record(record);
    sendError(
      {
        ...target,
        request: { model: '', stream: false, includeUsage: false, history: [] },
      },
      { error: rejection.error },
    );
  }

  async #answerContentFilter(
    answer: Answer,
    style: 'http400' | 'finish_reason',
  ): Promise<void> {
    const { record, protocol } = answer;
    record.disposition = 'rejected';
    record.reason = 'content-filter';
    this.#journal.record(record);
    if (style === 'http400') {
      sendError(answer, { error: protocol.contentFilterError() });
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
    const delay = waitForDelay(answer, attempt);
    this.#journal.record(record);
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

  async #serve(
    answer: Answer,
    reply: ScriptedReply,
    attempt: QueuedAttempt,
  ): Promise<void> {
    switch (attempt.kind) {
      case 'fail':
        sendError(answer, {
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
