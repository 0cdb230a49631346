/**
 * Test doubles for code that runs an `Agent`: a scripted, in-process model and a helper to
 * read what the last tool returned. Imported as `@candor/core/testing`, so a production bundle
 * that imports `@candor/core` never carries them.
 *
 * @example
 * ```ts
 * import { Agent } from '@candor/core';
 * import { lastToolResult, scriptedModel } from '@candor/core/testing';
 * ```
 *
 * @packageDocumentation
 * @module \@candor/core/testing
 */
export { lastToolResult, scriptedModel } from './scripted-model.ts';
export type {
  ScriptedModel,
  ScriptedReasoningBlock,
  ScriptedStep,
  ScriptedTurn,
} from './scripted-model.ts';
