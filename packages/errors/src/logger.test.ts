import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type Logger, silentLogger } from './logger.ts';

describe('Logger', () => {
  it('accepts a real pino logger', () => {
    const lines: string[] = [];
    const logger: Logger = pino(
      { level: 'debug' },
      { write: (line: string) => lines.push(line) },
    );
    logger.child({ tool: 'read' }).warn({ calls: 3 }, 'circuit opened');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      tool: 'read',
      calls: 3,
      msg: 'circuit opened',
    });
  });

  it('writes nothing by default, at any depth of children', () => {
    const child = silentLogger.child({ a: 1 }).child({ b: 2 });
    expect(child).toBe(silentLogger);
    expect(() => {
      child.error({ x: 1 }, 'nothing');
    }).not.toThrow();
  });
});
