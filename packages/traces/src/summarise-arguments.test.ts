import { describe, expect, it } from 'vitest';
import { summariseArguments } from './summarise-arguments.ts';

describe('summariseArguments', () => {
  it('shows strings as they are and objects as compact JSON, on one line', () => {
    expect(summariseArguments('bash -lc\n  ls')).toBe('bash -lc ls');
    expect(summariseArguments({ command: 'ls', n: 1 })).toBe(
      '{"command":"ls","n":1}',
    );
    expect(summariseArguments(undefined)).toBe('');
  });

  it('cuts long arguments to the width with an ellipsis', () => {
    const summary = summariseArguments({ content: 'x'.repeat(500) }, 20);
    expect(summary).toHaveLength(20);
    expect(summary.endsWith('…')).toBe(true);
  });

  it('survives values JSON cannot serialise', () => {
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(summariseArguments(cycle)).toBe('[arguments not serialisable]');
  });
});
