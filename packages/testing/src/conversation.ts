import { ScriptError } from './script-error.ts';
import { Step } from './step.ts';
import type {
  ConversationHandle,
  ConversationScript,
  StepScript,
} from './step-script.ts';
import type { RequestView } from './view-history.ts';

/** A named conversation: an ordered list of steps. */
export class Conversation implements ConversationScript, ConversationHandle {
  readonly name: string;
  readonly strict: boolean;
  readonly steps: Step[] = [];
  #completedBy: number | undefined;

  constructor(name: string, strict: boolean) {
    this.name = name;
    this.strict = strict;
  }

  get completed(): boolean {
    return this.#completedBy !== undefined;
  }

  step(name: string): StepScript {
    if (name === '') {
      throw new ScriptError('a step needs a non-empty name', {
        conversation: this.name,
      });
    }
    if (this.steps.some((existing) => existing.name === name)) {
      throw new ScriptError(`duplicate step name "${name}"`, {
        conversation: this.name,
        step: name,
      });
    }
    const step = new Step(name, this);
    this.steps.push(step);
    return step;
  }

  freeze(): void {
    if (this.steps.length === 0) {
      throw new ScriptError('has no steps', { conversation: this.name });
    }
    for (const step of this.steps) {
      step.freeze();
    }
  }

  /** The first unspent step whose conditions hold, unless the conversation is complete. */
  match(view: RequestView): Step | undefined {
    return this.completed
      ? undefined
      : this.steps.find((step) => step.matches(view));
  }

  markCompleted(attemptNumber: number): void {
    this.#completedBy = attemptNumber;
  }

  unmarkCompleted(attemptNumber: number): void {
    if (this.#completedBy === attemptNumber) {
      this.#completedBy = undefined;
    }
  }
}
