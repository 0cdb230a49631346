import { describe, expect, it } from 'vitest';
import { agentTask } from './agent-run.ts';
import { tracingTask } from './agent-tracing.ts';
import { callTask } from './call-overhead.ts';
import { type TaskTiming } from './measure-tasks.ts';
import { type MemoryMeasurement } from './memory-row.ts';
import {
  type BenchResults,
  judgeGoals,
  markers,
  mergeReport,
  renderReport,
} from './report.ts';
import { type TraceMeasurement } from './trace-row.ts';

function timing(name: string, ns: number): TaskTiming {
  return { name, meanNs: ns, roundsNs: [ns, ns, ns], operations: 3 };
}

function memory(
  subject: 'candor' | 'opossum',
  createdMb: number,
  calledMb: number,
  live: number,
): MemoryMeasurement {
  return {
    subject,
    tools: 10_000,
    createdBytes: createdMb * 1e6,
    calledBytes: calledMb * 1e6,
    timers: {
      // Candor's synchronous tool needs no timer; opossum sets one per fire().
      timeoutsCreated: subject === 'candor' ? 0 : 10_000,
      intervalsCreated: live,
      live,
      liveIntervals: live,
    },
  };
}

function reading(
  subject: 'json-parse' | 'normaliser',
  seconds: number,
  peakRssMb: number,
  bytes = 100e6,
): TraceMeasurement {
  return {
    subject,
    bytes,
    seconds,
    cpuSeconds: seconds,
    lines: 1,
    items: 1,
    errors: 0,
    peakRssBytes: peakRssMb * 1e6,
  };
}

const corpus = { path: '/tmp/x', bytes: 100e6, lines: 1, calls: 1, errors: 0 };

const results: BenchResults = {
  quick: false,
  machine: {
    cpu: 'Test CPU',
    cores: 2,
    memoryGb: 24,
    os: 'linux',
    node: 'v20.20.2',
    loadAverage: 1,
    date: '2026-11-30T00:00:00.000Z',
  },
  loadAverageAtEnd: 1,
  versions: { opossum: '9.0.0' },
  call: [
    timing(callTask.bare, 100),
    timing(callTask.zod, 110),
    timing(callTask.opossum, 1_000),
    timing(callTask.candor, 1_400),
    timing(callTask.langchain, 28_000),
    timing(callTask.openai, 5_000),
  ],
  agent: [
    timing(agentTask.candor, 20_000),
    timing(agentTask.aiSdk, 500_000),
    timing(agentTask.aiSdkCandor, 520_000),
  ],
  tracing: [timing(tracingTask.on, 20_600), timing(tracingTask.off, 20_000)],
  memory: {
    candor: memory('candor', 1, 60, 1),
    opossum: memory('opossum', 60, 70, 20_000),
  },
  trace: {
    corpus,
    quarterCorpus: { ...corpus, bytes: 25e6 },
    jsonParse: reading('json-parse', 1, 100),
    normaliser: reading('normaliser', 1.5, 120),
    normaliserQuarter: reading('normaliser', 0.4, 110, 25e6),
    jsonParseQuarter: reading('json-parse', 0.25, 95, 25e6),
    throughputRatio: 1 / 1.5,
    rounds: 3,
  },
  rounds: 3,
  seconds: 60,
};

describe('judgeGoals', () => {
  it('judges every goal of the issue on ratios of the same run', () => {
    const verdicts = judgeGoals(results);
    expect(
      verdicts.map(({ label, value, met }) => [label, value, met]),
    ).toEqual([
      ['registry.call ÷ bare opossum fire()', 1.4, false],
      ['OpenAI Agents JS invoke() ÷ registry.call', 5 / 1.4, true],
      ['LangChain.js invoke() ÷ registry.call', 20, true],
      ['AI SDK generateText ÷ Agent.run', 25, true],
      ['generateText, tool via toAISDKTools ÷ via plain tool()', 1.04, true],
      [
        'registry.call ÷ zod.parse + function (the floor), sync tool',
        1.4 / 0.11,
        true,
      ],
      ['heap of 10,000 registered tools, before any call', 1, true],
      [
        'heap of 10,000 called tools ÷ 10,000 bare opossum breakers',
        60 / 70,
        true,
      ],
      ['setTimeout calls for 10,000 calls of a synchronous tool', 0, true],
      ['timers still live after every tool was called', 1, true],
      ['trace normaliser ÷ JSON.parse throughput', 1 / 1.5, true],
      [
        'normaliser peak RSS, full trace ÷ quarter trace (flat memory)',
        120 / 110,
        true,
      ],
      ['Agent.run, agent telemetry on a no-op API ÷ off', 1.03, true],
    ]);
  });

  it('reports a missed goal as missed', () => {
    const slow: BenchResults = {
      ...results,
      call: results.call.map((task) =>
        task.name === callTask.candor ? timing(task.name, 20_000) : task,
      ),
    };
    const [first] = judgeGoals(slow);
    expect(first).toMatchObject({ value: 20, met: false });
  });

  it('scales the registration limit to the number of tools measured', () => {
    const small: BenchResults = {
      ...results,
      memory: {
        candor: { ...results.memory.candor, tools: 1_000 },
        opossum: { ...results.memory.opossum, tools: 1_000 },
      },
    };
    expect(
      judgeGoals(small).find(({ label }) =>
        label.startsWith('heap of 1,000 registered tools'),
      ),
    ).toMatchObject({ limit: 0.5, met: false });
  });
});

describe('renderReport', () => {
  it('writes the machine, Node version and date, the goals and every row', () => {
    const report = renderReport(results);
    expect(report.startsWith(markers.start)).toBe(true);
    expect(report.endsWith(markers.end)).toBe(true);
    expect(report).toContain('Test CPU, 2 cores');
    expect(report).toContain('Node v20.20.2');
    expect(report).toContain('## Results of 2026-11-30');
    expect(report).toContain(
      '| registry.call ÷ bare opossum fire() | 1.40× | ≤ 1.2× | **missed** |',
    );
    for (const heading of [
      '### 1.',
      '### 2.',
      '### 3.',
      '### 4.',
      '### Peers',
    ]) {
      expect(report).toContain(heading);
    }
  });

  it('adds the Redis command-rate row and its two goals when it was measured, and says it was skipped when not', () => {
    expect(renderReport(results)).toContain(
      'Skipped: `redis-server` is not installed',
    );
    const fleet = {
      idlePerSecond: 1,
      idleCommands: 10,
      idleSeconds: 10,
      rates: [
        { rate: 10, calls: 100, commands: 110, seconds: 10 },
        { rate: 100, calls: 500, commands: 330, seconds: 5 },
        { rate: 1_000, calls: 3_000, commands: 270, seconds: 3 },
      ],
      redisVersion: '7.0.15',
    };
    const report = renderReport({ ...results, fleet });
    expect(report).toContain('### 5. Redis commands of one process');
    expect(report).toMatch(
      /\| Redis store: commands a second of an idle process \(MONITOR\) +\| 1 commands\/s +\| ≤ 1 commands\/s +\| met/,
    );
    expect(judgeGoals({ ...results, fleet }).length).toBe(
      judgeGoals(results).length + 2,
    );
  });

  it('marks a quick run so it cannot pass for a result', () => {
    const report = renderReport({ ...results, quick: true });
    expect(report).toContain('QUICK MODE');
    expect(report).not.toContain('## Results of');
  });
});

describe('mergeReport', () => {
  const report = `${markers.start}\nnew\n${markers.end}`;

  it('starts a new document with a title', () => {
    expect(mergeReport(undefined, report)).toBe(`# Benchmarks\n\n${report}\n`);
  });

  it('replaces only the text between the markers', () => {
    const existing = `# Benchmarks\n\nintro\n\n${markers.start}\nold\n${markers.end}\n\n## Profiles\n\nkept\n`;
    expect(mergeReport(existing, report)).toBe(
      `# Benchmarks\n\nintro\n\n${report}\n\n## Profiles\n\nkept\n`,
    );
  });

  it('appends the report to a document without markers', () => {
    expect(mergeReport('# Benchmarks\n\nintro\n', report)).toBe(
      `# Benchmarks\n\nintro\n\n${report}\n`,
    );
  });

  it('refuses a document with only one marker instead of losing text', () => {
    expect(() => mergeReport(`intro\n${markers.start}\nhalf`, report)).toThrow(
      /broken pair of bench markers/,
    );
  });
});
