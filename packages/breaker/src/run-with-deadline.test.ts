import { CallAbort, ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadlines } from './deadlines.ts';
import { type DeadlineRun, runWithDeadline } from './run-with-deadline.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

function options(
  run: DeadlineRun['run'],
  abort = new CallAbort(),
): DeadlineRun {
  return {
    toolName: 't',
    timeoutMs: 1_000,
    abort,
    run,
    accept: (value) => value as ToolResponse,
    timedOut: () => ToolResponse.error('TIMEOUT', 'late'),
    cancelled: () =>
      ToolResponse.error('EXECUTION_ERROR', 'cancelled', { cancelled: true }),
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('runWithDeadline', () => {
  it('sets no timer for a tool that answers synchronously', () => {
    const ok = ToolResponse.success('ok');
    expect(runWithDeadline(options(() => ok))).toBe(ok);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('calls pending once, only for a tool that returns a promise; a throwing one does not stop the call', async () => {
    const ok = ToolResponse.success('ok');
    const pending = vi.fn();
    expect(runWithDeadline({ ...options(() => ok), pending })).toBe(ok);
    expect(pending).not.toHaveBeenCalled();
    const hostile = vi.fn(() => {
      throw new Error('cannot follow');
    });
    const response = await runWithDeadline({
      ...options(() => Promise.resolve(ok)),
      pending: hostile,
    });
    expect(hostile).toHaveBeenCalledTimes(1);
    expect(response).toBe(ok);
  });

  it('settles as cancelled, with no timer, when the caller aborts while the tool is starting', async () => {
    const abort = new CallAbort();
    const response = await runWithDeadline(
      options(() => {
        abort.abort(new Error('the user pressed stop'));
        return new Promise(() => undefined);
      }, abort),
    );
    expect(response).toMatchObject({
      status: 'error',
      errorInfo: { code: 'EXECUTION_ERROR', cancelled: true },
    });
    expect(vi.getTimerCount()).toBe(0);
    expect(deadlines.armed()).toBe(0);
  });

  it('settles as cancelled when a running call is aborted with a reason whose prototype read throws', async () => {
    const abort = new CallAbort();
    const pending = runWithDeadline(
      options(() => new Promise(() => undefined), abort),
    );
    abort.abort(
      new Proxy(
        {},
        {
          get() {
            throw new Error('unreadable reason');
          },
          getPrototypeOf() {
            throw new Error('unreadable prototype');
          },
        },
      ),
    );
    expect(await pending).toMatchObject({
      status: 'error',
      errorInfo: { code: 'EXECUTION_ERROR', cancelled: true },
    });
    expect(deadlines.armed()).toBe(0);
  });

  it('calls timedOut and cancelled as methods, so a class instance can be the run', async () => {
    class Run implements DeadlineRun {
      readonly toolName = 't';
      readonly timeoutMs = 1_000;
      readonly abort = new CallAbort();
      readonly #label = 'late';
      run(): unknown {
        return new Promise(() => undefined);
      }
      accept(value: unknown): ToolResponse {
        return value as ToolResponse;
      }
      timedOut(): ToolResponse {
        return ToolResponse.error('TIMEOUT', this.#label);
      }
      cancelled(): ToolResponse {
        return ToolResponse.error('EXECUTION_ERROR', this.#label, {
          cancelled: true,
        });
      }
    }
    const pending = runWithDeadline(new Run());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await pending).toMatchObject({
      status: 'error',
      errorInfo: { code: 'TIMEOUT', message: 'late' },
    });
  });

  it('shares one timer between concurrent calls of the same limit, and holds none after', async () => {
    const pending = Array.from({ length: 50 }, () =>
      Promise.resolve(
        runWithDeadline(options(() => new Promise(() => undefined))),
      ),
    );
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    const responses = await Promise.all(pending);
    expect(responses.every((r) => r.status === 'error')).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(deadlines.armed()).toBe(0);
  });

  it('a later call of the same limit still times out at its own deadline', async () => {
    const first = runWithDeadline(options(() => new Promise(() => undefined)));
    await vi.advanceTimersByTimeAsync(400);
    let second: ToolResponse | undefined;
    void Promise.resolve(
      runWithDeadline(options(() => new Promise(() => undefined))),
    ).then((r) => (second = r));
    await vi.advanceTimersByTimeAsync(600);
    expect((await first).status).toBe('error');
    expect(second).toBeUndefined();
    await vi.advanceTimersByTimeAsync(400);
    expect(second?.status === 'error' && second.errorInfo.code).toBe('TIMEOUT');
  });

  it('settles as cancelled when the abort reason throws on every read', async () => {
    const abort = new CallAbort();
    const pending = runWithDeadline(
      options(() => new Promise(() => undefined), abort),
    );
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no reads');
        },
      },
    );
    abort.abort(hostile);
    const response = await pending;
    expect(response.status === 'error' && response.errorInfo.cancelled).toBe(
      true,
    );
  });

  it('classifies a thrown ECONNRESET as NETWORK_ERROR, and a throwing thenable too', async () => {
    const reset = await runWithDeadline(
      options(() => {
        throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
      }),
    );
    expect(reset.status === 'error' && reset.errorInfo.code).toBe(
      'NETWORK_ERROR',
    );
    const thenable = await runWithDeadline(
      options(() => ({
        then() {
          throw new Error('bad thenable');
        },
      })),
    );
    expect(thenable.status).toBe('error');
  });
});
