import { everyTrapThrows, revokedProxy } from '@candor/hostile-fixtures';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { guardLogger } from './guard-logger.ts';
import { type Logger, silentLogger } from './logger.ts';

const levels = ['trace', 'debug', 'info', 'warn', 'error'] as const;

function boom(): never {
  throw new Error('logger down');
}

/** Calls every method of `logger`, and a child's, and returns what a throw would have been. */
function writeEverything(logger: Logger): void {
  for (const level of levels) logger[level]({ n: 1 }, level);
  const child = logger.child({ tool: 't' });
  for (const level of levels) child[level]({ n: 2 }, level);
  child.child({ deeper: true }).error({ n: 3 }, 'deeper');
}

/** A class-based logger: its methods reach private state through `this`, as pino's do. */
class RecordingLogger implements Logger {
  readonly #lines: string[];
  readonly #bindings: Readonly<Record<string, unknown>>;
  constructor(lines: string[] = [], bindings: Record<string, unknown> = {}) {
    this.#lines = lines;
    this.#bindings = bindings;
  }
  get lines(): readonly string[] {
    return this.#lines;
  }
  #write(level: string, fields: object, message?: string): void {
    this.#lines.push(
      JSON.stringify({ level, ...this.#bindings, ...fields, message }),
    );
  }
  trace(fields: object, message?: string): void {
    this.#write('trace', fields, message);
  }
  debug(fields: object, message?: string): void {
    this.#write('debug', fields, message);
  }
  info(fields: object, message?: string): void {
    this.#write('info', fields, message);
  }
  warn(fields: object, message?: string): void {
    this.#write('warn', fields, message);
  }
  error(fields: object, message?: string): void {
    this.#write('error', fields, message);
  }
  child(bindings: Record<string, unknown>): Logger {
    return new RecordingLogger(this.#lines, { ...this.#bindings, ...bindings });
  }
}

describe('guardLogger', () => {
  it('gives silentLogger itself for no logger, with or without bindings', () => {
    expect(guardLogger(undefined)).toBe(silentLogger);
    expect(guardLogger(undefined, { component: 'x' })).toBe(silentLogger);
    expect(guardLogger(silentLogger)).toBe(silentLogger);
    expect(guardLogger(silentLogger, { component: 'x' })).toBe(silentLogger);
  });

  it('never wraps twice', () => {
    const once = guardLogger(new RecordingLogger());
    expect(guardLogger(once)).toBe(once);
    const child = once.child({ a: 1 });
    expect(guardLogger(child)).toBe(child);
  });

  it('keeps `this` for a class-based logger, with child bindings', () => {
    const target = new RecordingLogger();
    const logger = guardLogger(target, { component: 'registry' });
    logger.warn({ calls: 3 }, 'circuit opened');
    logger.child({ tool: 'read' }).info({ ok: true });
    expect(target.lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      {
        level: 'warn',
        component: 'registry',
        calls: 3,
        message: 'circuit opened',
      },
      { level: 'info', component: 'registry', tool: 'read', ok: true },
    ]);
  });

  it('passes a real pino logger its lines and bindings', () => {
    const lines: string[] = [];
    const logger = guardLogger(
      pino({ level: 'trace' }, { write: (line: string) => lines.push(line) }),
      { component: 'agent' },
    );
    logger.child({ tool: 'read' }).debug({ calls: 3 }, 'retrying');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      level: 20,
      component: 'agent',
      tool: 'read',
      calls: 3,
      msg: 'retrying',
    });
  });

  it('swallows methods that throw, and a child that throws', () => {
    const target = {
      trace: boom,
      debug: boom,
      info: boom,
      warn: boom,
      error: boom,
      child: boom,
    };
    expect(() => {
      writeEverything(guardLogger(target));
    }).not.toThrow();
    expect(() => guardLogger(target, { component: 'x' })).not.toThrow();
  });

  it('swallows getters that throw, read on each line', () => {
    let reads = 0;
    const target = {} as Logger;
    for (const name of [...levels, 'child']) {
      Object.defineProperty(target, name, {
        get() {
          reads += 1;
          return boom();
        },
      });
    }
    expect(() => {
      writeEverything(guardLogger(target, { component: 'x' }));
    }).not.toThrow();
    expect(reads).toBeGreaterThan(levels.length);
  });

  it('swallows a Proxy whose every trap throws', () => {
    const target = everyTrapThrows().proxy as Logger;
    expect(() => {
      writeEverything(guardLogger(target, { component: 'x' }));
    }).not.toThrow();
  });

  it('logs through the parent when child is missing, throws, or returns garbage', () => {
    for (const child of [undefined, boom, () => 42, () => null, () => 'x']) {
      const target = new RecordingLogger();
      const partial = {
        info: target.info.bind(target),
        trace: boom,
        debug: boom,
        warn: boom,
        error: boom,
        ...(child === undefined ? {} : { child }),
      } as unknown as Logger;
      const logger = guardLogger(partial, { component: 'lost' });
      expect(() => {
        writeEverything(logger);
      }).not.toThrow();
      expect(target.lines.length).toBeGreaterThan(0);
      expect(JSON.parse(target.lines[0] ?? '{}')).toEqual({
        level: 'info',
        n: 1,
        message: 'info',
      });
    }
  });

  it('guards the child the user logger returns', () => {
    const child = { ...silentLogger, info: boom, child: boom };
    const logger = guardLogger({ ...silentLogger, child: () => child });
    expect(() => {
      logger.child({ a: 1 }).info({}, 'x');
      logger.child({ a: 1 }).child({ b: 2 }).info({}, 'x');
    }).not.toThrow();
  });

  it('swallows a non-object logger given from plain JavaScript', () => {
    for (const given of [null, 42, 'pino']) {
      expect(() => {
        writeEverything(guardLogger(given as unknown as Logger, { c: 1 }));
      }).not.toThrow();
    }
  });

  it('catches the rejection of an async logger', async () => {
    let settled = 0;
    const rejecting = () => {
      settled += 1;
      return Promise.reject(new Error('transport down'));
    };
    const target = { ...silentLogger, warn: rejecting };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      guardLogger(target).warn({}, 'x');
      // Two turns: Node reports an unhandled rejection after the microtask queue drains.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(settled).toBe(1);
    expect(unhandled).toEqual([]);
  });
});

/** Runs `write`, then waits the two turns after which Node reports an unhandled rejection. */
async function unhandledAfter(write: () => void): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    write();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  return unhandled;
}

class ThrowingThen<T> extends Promise<T> {
  override then(): never {
    throw new Error('then is broken');
  }
}

describe('guardLogger against hostile promises', () => {
  const hostile: Record<string, () => unknown> = {
    'a rejected promise whose own `then` does nothing': () => {
      const p = Promise.reject(new Error('transport down'));
      void Object.defineProperty(p, 'then', { value: () => undefined });
      return p;
    },
    'a rejected promise whose own `then` getter throws': () => {
      const p = Promise.reject(new Error('transport down'));
      void Object.defineProperty(p, 'then', {
        get() {
          throw new Error('then getter');
        },
      });
      return p;
    },
    'a rejected promise with no prototype': () => {
      const p = Promise.reject(new Error('transport down'));
      Object.setPrototypeOf(p, null);
      return p;
    },
    'a rejected Promise subclass whose `then` throws': () =>
      ThrowingThen.reject(new Error('transport down')),
  };
  for (const [name, make] of Object.entries(hostile)) {
    it(`catches ${name}`, async () => {
      let calls = 0;
      const target = {
        ...silentLogger,
        warn: () => {
          calls += 1;
          return make();
        },
      };
      const unhandled = await unhandledAfter(() => {
        guardLogger(target).warn({}, 'x');
      });
      expect(calls).toBe(1);
      expect(unhandled).toEqual([]);
    });
  }

  it('ignores a thenable whose `then` getter throws, and a winston-style `this`', () => {
    const thenable = {
      get then(): never {
        throw new Error('then getter');
      },
    };
    const chaining: Logger = {
      ...silentLogger,
      info(): Logger {
        return chaining;
      },
      warn: () => thenable,
    };
    const guarded = guardLogger(chaining);
    expect(() => {
      guarded.info({}, 'x');
      guarded.warn({}, 'y');
    }).not.toThrow();
  });
});

describe('guardLogger against hostile throws and children', () => {
  it('swallows thrown non-Errors: a Symbol, an object whose `message` getter throws', () => {
    const weird = [
      Symbol('boom'),
      {
        get message(): never {
          throw new Error('message getter');
        },
      },
      undefined,
    ];
    for (const thrown of weird) {
      const target = {
        ...silentLogger,
        error: () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- the point of the test
          throw thrown;
        },
      };
      expect(() => {
        guardLogger(target).error({}, 'x');
      }).not.toThrow();
    }
  });

  it('keeps writing a logger that starts throwing at the third line and recovers', () => {
    const lines: string[] = [];
    let n = 0;
    const target = {
      ...silentLogger,
      info: (_fields: object, message?: string) => {
        n += 1;
        if (n === 3) throw new Error('third line');
        lines.push(message ?? '');
      },
    };
    const guarded = guardLogger(target);
    for (const m of ['a', 'b', 'c', 'd']) guarded.info({}, m);
    expect(lines).toEqual(['a', 'b', 'd']);
  });

  it('guards a child that is the same logger, a frozen object, a function, or a Proxy', () => {
    const children: unknown[] = [
      Object.freeze({ warn: 1 }),
      Object.assign(() => undefined, {
        warn: () => {
          throw new Error('fn');
        },
      }),
      revokedProxy(),
    ];
    for (const child of children) {
      const target = {
        ...silentLogger,
        child: () => child,
      } as unknown as Logger;
      const guarded = guardLogger(target).child({ c: 1 });
      expect(() => {
        guarded.warn({}, 'x');
        guarded.child({ d: 2 }).error({}, 'y');
      }).not.toThrow();
    }
    // A logger whose child is itself, and throws on every line: each child is guarded once.
    const selfish: Logger = {
      ...silentLogger,
      warn: () => {
        throw new Error('w');
      },
      child: () => selfish,
    };
    let logger = guardLogger(selfish);
    for (let i = 0; i < 1000; i += 1) logger = logger.child({ i });
    expect(() => {
      logger.warn({}, 'deep');
    }).not.toThrow();
  });
});

describe('guardLogger against an async child factory', () => {
  it('handles a rejected promise from child() and logs through the parent', async () => {
    const lines: string[] = [];
    const target = {
      ...silentLogger,
      info: (_fields: object, message?: string) => {
        lines.push(message ?? '');
      },
      child: () => Promise.reject(new Error('child transport down')),
    } as unknown as Logger;
    const unhandled = await unhandledAfter(() => {
      guardLogger(target, { c: 1 }).info({}, 'kept');
    });
    expect(unhandled).toEqual([]);
    expect(lines).toEqual(['kept']);
  });
});

describe('guardLogger against a logger that logs through itself', () => {
  it('survives unbounded recursion: the stack overflow loses lines, not the caller', () => {
    let depth = 0;
    const box: { guarded: Logger | undefined } = { guarded: undefined };
    const target = {
      ...silentLogger,
      warn: (_fields: object, message?: string) => {
        depth += 1;
        box.guarded?.warn({ depth }, message);
      },
    };
    box.guarded = guardLogger(target);
    const guarded = box.guarded;
    expect(() => {
      guarded.warn({}, 'again');
    }).not.toThrow();
    expect(depth).toBeGreaterThan(100);
    // Still writes afterwards.
    const before = depth;
    box.guarded = undefined;
    guarded.warn({}, 'once');
    expect(depth).toBe(before + 1);
  });
});
