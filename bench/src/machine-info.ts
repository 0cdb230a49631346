import { cpus, loadavg, platform, release, totalmem } from 'node:os';

/** The machine a run measured on: every result is only comparable within one of these. */
export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly os: string;
  readonly node: string;
  /** One-minute load average when the run started: a busy machine makes every figure noisier. */
  readonly loadAverage: number;
  readonly date: string;
}

/** Describes this machine now. */
export function machineInfo(now: Date = new Date()): MachineInfo {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown CPU',
    cores: list.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
    date: now.toISOString(),
  };
}
