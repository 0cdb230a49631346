import { z } from 'zod';
import { runChild } from './run-child.ts';

const probeResult = z.object({
  subject: z.enum(['candor', 'opossum']),
  tools: z.number().int(),
  createdBytes: z.number(),
  calledBytes: z.number(),
  timers: z.object({
    timeoutsCreated: z.number().int(),
    intervalsCreated: z.number().int(),
    live: z.number().int(),
    liveIntervals: z.number().int(),
  }),
});

/** One side of row 3, measured in a process of its own. */
export type MemoryMeasurement = z.infer<typeof probeResult>;

/** Row 3: Candor's registry against bare opossum breakers, each in a fresh process. */
export interface MemoryRow {
  readonly candor: MemoryMeasurement;
  readonly opossum: MemoryMeasurement;
}

async function probe(
  subject: 'candor' | 'opossum',
  tools: number,
): Promise<MemoryMeasurement> {
  const output = await runChild({
    script: './memory-probe.ts',
    args: [subject, String(tools)],
    timeoutMs: 10 * 60_000,
  });
  const parsed = probeResult.safeParse(output);
  if (!parsed.success) {
    throw new Error(
      `memory-probe ${subject} printed an unexpected result: ${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}

/** Runs both sides of row 3, one after the other so they never compete for the CPU. */
export async function measureMemory(tools: number): Promise<MemoryRow> {
  const candor = await probe('candor', tools);
  const opossum = await probe('opossum', tools);
  return { candor, opossum };
}
