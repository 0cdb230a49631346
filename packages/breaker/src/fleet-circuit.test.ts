import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  type BreakerStateStore,
  type SharedAdmission,
  type SharedChange,
  type SharedCircuit,
  type SharedView,
} from './breaker-state-store.ts';
import { createToolBreaker } from './tool-breaker.ts';
import {
  codeOf,
  failure,
  ok,
  useBreakers,
} from './__fixtures__/breaker-calls.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

const make = useBreakers();

interface Line {
  level: number;
  msg: string;
  tool?: string;
}

function capture(): { logger: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const logger = pino(
    { level: 'debug', base: null, timestamp: false },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as Line);
      },
    },
  );
  return { logger, lines };
}

const storeFailed = 'breaker state store failed; this breaker decides alone';

/** A shared circuit whose answers the test sets, recording what it is told. */
class FakeCircuit implements SharedCircuit {
  view: SharedView = 'closed';
  answer: SharedAdmission = { kind: 'run' };
  openedAt: number | undefined = undefined;
  readonly recorded: [SharedAdmission['kind'], boolean][] = [];
  readonly listeners = new Set<(change: SharedChange) => void>();

  admit(): SharedAdmission {
    return this.answer;
  }

  record(admission: SharedAdmission, failed: boolean): void {
    this.recorded.push([admission.kind, failed]);
  }

  onChange(listener: (change: SharedChange) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  change(to: SharedView): void {
    const from = this.view;
    this.view = to;
    for (const listener of this.listeners) {
      listener({ tool: 't', from, to, origin: 'fleet' });
    }
  }
}

function storeOf(circuit: SharedCircuit): BreakerStateStore {
  return { circuit: () => circuit };
}

describe('a breaker with a shared state store', () => {
  it('follows the shared circuit: its view, its refusals, and each outcome recorded once', async () => {
    const circuit = new FakeCircuit();
    const breaker = make({ store: storeOf(circuit) }, 't');
    const changes: string[] = [];
    breaker.onStateChange(({ from, to, origin }) =>
      changes.push(`${from}→${to} (${origin})`),
    );
    expect(await breaker.execute(async () => ok())).toMatchObject({
      status: 'success',
    });
    await breaker.execute(async () => failure());
    await breaker.execute(async () => failure('NOT_FOUND'));
    expect(circuit.recorded).toEqual([
      ['run', false],
      ['run', true],
      ['run', false],
    ]);

    circuit.openedAt = Date.now();
    circuit.answer = { kind: 'refuse', state: 'open', retryAfterMs: 4_000 };
    circuit.change('open');
    expect(breaker.state).toBe('open');
    const refused = await breaker.execute(async () => ok());
    expect(codeOf(refused)).toBe('CIRCUIT_OPEN');
    expect(refused.status === 'error' && refused.errorInfo.retryAfterMs).toBe(
      4_000,
    );
    expect(breaker.snapshot()).toMatchObject({
      state: 'open',
      openedAt: circuit.openedAt,
    });
    expect(changes).toEqual(['closed→open (fleet)']);

    breaker.shutdown();
    expect(circuit.listeners.size).toBe(0);
  });

  it('decides alone, warned once, when the store cannot make the circuit', async () => {
    const { logger, lines } = capture();
    const breaker = make({
      logger,
      minimumCalls: 2,
      store: {
        circuit: () => {
          throw new Error('store down');
        },
      },
    });
    await breaker.execute(async () => failure());
    await breaker.execute(async () => failure());
    expect(breaker.state).toBe('open');
    expect(lines.filter(({ msg }) => msg === storeFailed)).toHaveLength(1);
  });

  it('treats a shared circuit that throws as absent for each call, with one warning per breaker', async () => {
    const broken: SharedCircuit = {
      get view(): SharedView {
        throw new Error('view down');
      },
      admit: () => {
        throw new Error('admit down');
      },
      record: () => {
        throw new Error('record down');
      },
      onChange: () => () => undefined,
    };
    const { logger, lines } = capture();
    const breaker = make({ logger, minimumCalls: 2, store: storeOf(broken) });
    expect(breaker.state).toBe('closed');
    await breaker.execute(async () => failure());
    await breaker.execute(async () => failure());
    expect(breaker.state).toBe('open');
    expect(lines.filter(({ msg }) => msg === storeFailed)).toHaveLength(1);

    // A circuit that answers `view` but throws on admit and record: the local breaker decides.
    const flaky = new FakeCircuit();
    flaky.admit = () => {
      throw new Error('admit down');
    };
    const second = capture();
    const other = createToolBreaker('other', {
      logger: second.logger,
      store: storeOf(flaky),
    });
    try {
      expect(await other.execute(async () => ok())).toMatchObject({
        status: 'success',
      });
      expect(flaky.recorded).toEqual([]);
      expect(
        second.lines.filter(({ msg }) => msg === storeFailed),
      ).toHaveLength(1);
    } finally {
      other.shutdown();
    }
  });
});
