/**
 * What opossum's action returns for one admitted call: a thenable whose callbacks the owner's
 * `record()` calls, so opossum counts the outcome synchronously, with no timer and no promise of
 * our own. opossum 9 calls `result.then(onSuccess).catch(onFailure)` on the action's result.
 * One object per call holds both callbacks (in place of a closure per method).
 */
export class OutcomeLink {
  onSuccess: ((value: unknown) => void) | undefined = undefined;
  onFailure: ((error: unknown) => void) | undefined = undefined;

  then(onSuccess: (value: unknown) => void): this {
    this.onSuccess = onSuccess;
    return this;
  }

  catch(onFailure: (error: unknown) => void): void {
    this.onFailure = onFailure;
  }
}

/** Handles opossum's own promise for a fire(); the outcome is read from the link instead. */
export function ignore(): void {
  // Nothing waits for opossum's promise: our outcomes carry the call's response.
}
