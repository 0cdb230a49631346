// The test doubles moved to `@candor/core/testing`. The main entry keeps these aliases for one
// minor version so code written against it keeps working; each is the same value or type as the
// one the subpath exports.
import {
  lastToolResult as testingLastToolResult,
  type ScriptedModel as TestingScriptedModel,
  scriptedModel as testingScriptedModel,
  type ScriptedStep as TestingScriptedStep,
  type ScriptedTurn as TestingScriptedTurn,
} from './scripted-model.ts';

/**
 * An in-process, deterministic model for tests and demos.
 * @deprecated Use `scriptedModel` from `@candor/core/testing`. Removed in the next minor version.
 */
export const scriptedModel: typeof testingScriptedModel = testingScriptedModel;

/**
 * The content of the last tool result the model received.
 * @deprecated Use `lastToolResult` from `@candor/core/testing`. Removed in the next minor version.
 */
export const lastToolResult: typeof testingLastToolResult =
  testingLastToolResult;

/**
 * A scripted model that also shows what it received.
 * @deprecated Use `ScriptedModel` from `@candor/core/testing`. Removed in the next minor version.
 */
export type ScriptedModel = TestingScriptedModel;

/**
 * A scripted turn, or a function that picks it from the request.
 * @deprecated Use `ScriptedStep` from `@candor/core/testing`. Removed in the next minor version.
 */
export type ScriptedStep = TestingScriptedStep;

/**
 * One scripted model turn: text, tool calls, or both.
 * @deprecated Use `ScriptedTurn` from `@candor/core/testing`. Removed in the next minor version.
 */
export type ScriptedTurn = TestingScriptedTurn;
