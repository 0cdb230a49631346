import { ModelError } from './model-error.ts';

/** A failure's `error.type`: a model error's HTTP status or kind, else the error's name. */
export function errorType(error: unknown): string {
  if (error instanceof ModelError)
    return error.status === undefined ? error.kind : String(error.status);
  return error instanceof Error ? error.name : 'unknown';
}
