import { type ToolResponse } from '@candor/tools';

/**
 * Carries a counted ERROR response through opossum, which only counts a rejection as a failure.
 * The breaker unwraps it after `fire()` and returns the very same response object.
 */
export class CountedFailure extends Error {
  readonly response: ToolResponse;

  constructor(response: ToolResponse) {
    super('counted tool failure');
    this.name = 'CountedFailure';
    this.response = response;
  }
}
