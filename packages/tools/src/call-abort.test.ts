import { describe, expect, it, vi } from 'vitest';
import { CallAbort } from './call-abort.ts';

describe('CallAbort', () => {
  it('makes no signal until one is read, and a read signal follows the abort', () => {
    const abort = new CallAbort();
    const signal = abort.signal;
    expect(signal.aborted).toBe(false);
    const reason = new DOMException('late', 'TimeoutError');
    abort.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(abort.signal).toBe(signal);
  });

  it('gives an already aborted signal when read after the abort', () => {
    const abort = new CallAbort();
    abort.abort('stop');
    expect(abort.aborted).toBe(true);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe('stop');
  });

  it('runs listeners once, in order, past a throwing one, and honours unsubscribe', () => {
    const abort = new CallAbort();
    const calls: string[] = [];
    abort.onAbort(() => {
      calls.push('a');
      throw new Error('listener bug');
    });
    const off = abort.onAbort(() => calls.push('removed'));
    abort.onAbort((reason) => calls.push(`b:${String(reason)}`));
    off();
    abort.abort('x');
    abort.abort('y');
    expect(calls).toEqual(['a', 'b:x']);
    const late = vi.fn();
    abort.onAbort(late);
    expect(late).toHaveBeenCalledWith('x');
  });

  it('follows another signal, and stops following on request', () => {
    const parent = new AbortController();
    const abort = new CallAbort();
    const stop = abort.follow(parent.signal);
    parent.abort('caller');
    expect(abort.reason).toBe('caller');
    const other = new CallAbort();
    const second = new AbortController();
    other.follow(second.signal)();
    second.abort('ignored');
    expect(other.aborted).toBe(false);
    stop();
    const already = new CallAbort();
    already.follow(AbortSignal.abort('before'));
    expect(already.reason).toBe('before');
  });
});
