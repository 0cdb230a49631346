import { describe, expect, it } from 'vitest';
import {
  countingProxy,
  everyTrapThrows,
  LOGGER_MEMBERS,
  rejectingLogger,
  revokedProxy,
  throwingGetters,
  throwingLogger,
  throwingProxy,
} from './index.ts';

// The packages' tests lean on these counting what they claim to count: a fixture that stopped
// throwing would turn every "survives a hostile logger" test into one that cannot fail.
describe('the hostile fixtures', () => {
  it('throwingLogger throws from every method and counts each attempt', () => {
    const { logger, attempts } = throwingLogger();
    for (const level of ['trace', 'debug', 'info', 'warn', 'error'] as const) {
      expect(() => {
        logger[level]({}, 'line');
      }).toThrow('logger down');
    }
    expect(logger.child({})).toBe(logger);
    expect(attempts()).toBe(5);
  });

  it('throwingGetters throws on reading any member', () => {
    const { logger, reads } = throwingGetters();
    for (const member of LOGGER_MEMBERS) {
      expect(() => Reflect.get(logger, member)).toThrow('getter down');
    }
    expect(reads()).toBe(LOGGER_MEMBERS.length);
  });

  it('throwingProxy throws on every read, and only reads are traps', () => {
    const { logger, reads } = throwingProxy('down');
    expect((): unknown => logger.child).toThrow('down');
    expect('info' in logger).toBe(false);
    expect(Object.keys(logger)).toEqual([]);
    expect(reads()).toBe(1);
  });

  it('everyTrapThrows throws from each trap it is asked for', () => {
    const { proxy, touches } = everyTrapThrows('no');
    expect((): unknown => Reflect.get(proxy, 'x')).toThrow('no');
    expect(() => 'x' in proxy).toThrow('no');
    expect(() => Object.keys(proxy)).toThrow('no');
    expect((): unknown => Object.getPrototypeOf(proxy)).toThrow('no');
    expect(touches()).toBe(4);
  });

  it('rejectingLogger returns a rejection that only the intrinsic then can handle', async () => {
    const { logger, attempts, unhandled } = rejectingLogger();
    // The type says void; the method returns its promise all the same.
    const warn: (fields: object) => unknown = logger.warn;
    const result = warn({});
    expect(result).toBeInstanceOf(Promise);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to a promise only
    const then = Promise.prototype.then;
    await expect(
      Reflect.apply(then, result, []) as Promise<unknown>,
    ).rejects.toThrow('async logger down');
    expect(attempts()).toBe(1);
    expect(unhandled()).toBe(0);
  });

  it('revokedProxy throws a TypeError on any operation', () => {
    const proxy = revokedProxy();
    expect(typeof proxy).toBe('object');
    expect(() => Object.keys(proxy)).toThrow(TypeError);
  });

  it('countingProxy counts each get and has by key, and answers as its target', () => {
    const { proxy, reads, asks } = countingProxy({ a: 1, b: 'two' });
    expect(proxy.a).toBe(1);
    expect(proxy.a).toBe(1);
    expect('b' in proxy).toBe(true);
    expect(reads('a')).toBe(2);
    expect(reads('b')).toBe(0);
    expect(asks('b')).toBe(1);
    expect(Object.keys(proxy)).toEqual(['a', 'b']);
  });
});
