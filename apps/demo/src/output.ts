import { outcomeOf, type ToolOutcome, type ToolResponse } from '@candor/tools';

const marks: Record<ToolOutcome, string> = {
  success: '✓',
  partial: '⚠',
  error: '✗',
  denied: '⊘',
};

const colours: Record<ToolOutcome, string> = {
  success: '\u001b[32m',
  partial: '\u001b[33m',
  error: '\u001b[31m',
  denied: '\u001b[35m',
};

const BOLD = '\u001b[1m';
const DIM = '\u001b[2m';
const RESET = '\u001b[0m';

/** How the demo writes: for people (colour on a TTY) or as JSON lines for machines. */
export interface OutputOptions {
  readonly json: boolean;
  readonly colour: boolean;
  readonly write: (line: string) => void;
}

/** One line of the result of a response: mark, status, code or reason. */
export function describeResponse(response: ToolResponse): string {
  const outcome = outcomeOf(response);
  const detail =
    response.status === 'error'
      ? ` ${response.errorInfo.code}`
      : response.status === 'partial'
        ? ` (reason: ${response.reason})`
        : '';
  return `${marks[outcome]} ${outcome.toUpperCase()}${detail}`;
}

function preview(text: string, length = 90): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1)}…`;
}

/** The demo's printer. Every section goes through it, so `--json` covers everything. */
export class Output {
  readonly #options: OutputOptions;
  #section = '';

  constructor(options: OutputOptions) {
    this.#options = options;
  }

  #paint(code: string, text: string): string {
    return this.#options.colour ? `${code}${text}${RESET}` : text;
  }

  #json(event: Record<string, unknown>): void {
    this.#options.write(JSON.stringify({ section: this.#section, ...event }));
  }

  section(title: string): void {
    this.#section = title;
    if (this.#options.json) return;
    this.#options.write('');
    this.#options.write(this.#paint(BOLD, `── ${title} ──`));
  }

  note(text: string): void {
    if (this.#options.json) {
      this.#json({ type: 'note', text });
      return;
    }
    this.#options.write(this.#paint(DIM, `  ${text}`));
  }

  response(label: string, response: ToolResponse): void {
    const outcome = outcomeOf(response);
    if (this.#options.json) {
      this.#json({
        type: 'response',
        label,
        outcome,
        ...(response.status === 'error'
          ? { code: response.errorInfo.code }
          : {}),
        ...(response.status === 'partial' ? { reason: response.reason } : {}),
        text: response.text,
        ...('data' in response ? { data: response.data } : {}),
      });
      return;
    }
    this.#options.write(
      `  ${this.#paint(colours[outcome], describeResponse(response))}  ${label}`,
    );
    this.#options.write(
      this.#paint(DIM, `      text: ${JSON.stringify(preview(response.text))}`),
    );
  }

  timeline(elapsedMs: number, text: string, state?: string): void {
    if (this.#options.json) {
      this.#json({
        type: 'timeline',
        elapsedMs,
        text,
        ...(state === undefined ? {} : { state }),
      });
      return;
    }
    const time = `t=${String(elapsedMs).padStart(4)} ms`;
    this.#options.write(
      `  ${this.#paint(DIM, time)}  ${text}${state === undefined ? '' : `  [breaker: ${state}]`}`,
    );
  }

  modelReceived(
    step: number,
    toolName: string,
    content: string,
    outcome: ToolOutcome,
  ): void {
    if (this.#options.json) {
      this.#json({ type: 'model-received', step, toolName, outcome, content });
      return;
    }
    this.#options.write(
      `  ${this.#paint(colours[outcome], marks[outcome])} step ${step}: ${toolName} → the model received:`,
    );
    for (const line of content.split('\n'))
      this.#options.write(this.#paint(DIM, `      │ ${line}`));
  }

  modelSaid(step: number, text: string): void {
    if (text === '') return;
    if (this.#options.json) {
      this.#json({ type: 'model-said', step, text });
      return;
    }
    this.#options.write(
      `  step ${step}: the model said: ${JSON.stringify(text)}`,
    );
  }

  done(stopReason: string): void {
    if (this.#options.json) {
      this.#json({ type: 'done', stopReason });
      return;
    }
    this.#options.write(`  run finished: ${stopReason}`);
  }
}
