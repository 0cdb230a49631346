import { describe, expect, it } from 'vitest';
import { parseBenchOptions, UsageError } from './bench-options.ts';

describe('parseBenchOptions', () => {
  it('runs the full bench by default: 10,000 tools and a 100 MB trace', () => {
    const options = parseBenchOptions([]);
    expect(options.quick).toBe(false);
    expect(options.memoryTools).toBe(10_000);
    expect(options.traceBytes).toBeGreaterThanOrEqual(100_000_000);
  });

  it('shrinks every size with --quick', () => {
    const full = parseBenchOptions([]);
    const quick = parseBenchOptions(['--quick']);
    expect(quick.quick).toBe(true);
    expect(quick.memoryTools).toBeLessThan(full.memoryTools);
    expect(quick.traceBytes).toBeLessThan(full.traceBytes);
    expect(quick.timing.minCpuTimeMs).toBeLessThan(full.timing.minCpuTimeMs);
    // Row 2's runs take milliseconds: its quick rounds keep a floor of runs and an odd count.
    expect(quick.agentTiming.minSamples).toBeGreaterThanOrEqual(20);
    expect(quick.agentTiming.rounds % 2).toBe(1);
  });

  it('gives the telemetry row more rounds than row 1 in the full run, and an odd count', () => {
    const full = parseBenchOptions([]);
    expect(full.tracingTiming.rounds).toBeGreaterThan(full.timing.rounds);
    expect(full.tracingTiming.rounds % 2).toBe(1);
  });

  it('accepts the flags after the -- that the root script forwards them with', () => {
    expect(parseBenchOptions(['--', '--quick']).quick).toBe(true);
  });

  it('runs one row alone with --only, and refuses a row it does not know', () => {
    expect(parseBenchOptions([]).only).toBeUndefined();
    expect(parseBenchOptions(['--only', 'fleet']).only).toBe('fleet');
    expect(() => parseBenchOptions(['--only', 'memory'])).toThrow(
      /--only takes one of fleet, got "memory"/,
    );
  });

  it('gives the command-rate row longer windows in the full run, and the slowest rate the longest', () => {
    const full = parseBenchOptions([]).fleet;
    const quick = parseBenchOptions(['--quick']).fleet;
    expect(quick.idleMs).toBeLessThan(full.idleMs);
    expect(full.windowMs[10]).toBeGreaterThanOrEqual(full.windowMs[1_000] ?? 0);
  });

  it('refuses an unknown option with the usage line', () => {
    expect(() => parseBenchOptions(['--fast'])).toThrow(UsageError);
    expect(() => parseBenchOptions(['--fast'])).toThrow(
      /Unknown option '--fast'[\s\S]*usage: pnpm bench \[--quick\]/,
    );
  });
});
