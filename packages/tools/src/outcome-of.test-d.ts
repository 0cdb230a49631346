import { describe, expectTypeOf, it } from 'vitest';
import { isDenied, isOutcome } from './outcome-of.ts';
import type {
  ErrorResponse,
  PartialResponse,
  SuccessResponse,
  ToolResponse,
} from './tool-response.ts';

declare const response: ToolResponse;

describe('isOutcome types', () => {
  it('narrows each outcome to its response type', () => {
    if (isOutcome(response, 'error')) {
      expectTypeOf(response).toExtend<ErrorResponse>();
      expectTypeOf(response.errorInfo.code).toBeString();
    }
    if (isOutcome(response, 'denied')) {
      expectTypeOf(response).toExtend<ErrorResponse>();
      expectTypeOf(response.errorInfo.code).toBeString();
    }
    if (isOutcome(response, 'partial')) {
      expectTypeOf(response).toEqualTypeOf<PartialResponse>();
      expectTypeOf(response.reason).toBeString();
    }
    if (isOutcome(response, 'success')) {
      expectTypeOf(response).toEqualTypeOf<SuccessResponse>();
    }
  });

  it('keeps denials in the else branch of an error check', () => {
    if (!isOutcome(response, 'error')) {
      // A denial is an ErrorResponse whose outcome is not 'error': it must stay reachable.
      expectTypeOf(response).toEqualTypeOf<ToolResponse>();
    }
    if (!isOutcome(response, 'denied')) {
      expectTypeOf(response).toEqualTypeOf<ToolResponse>();
    }
    if (!isOutcome(response, 'success')) {
      expectTypeOf(response).toEqualTypeOf<PartialResponse | ErrorResponse>();
    }
  });

  it('leaves isDenied a plain boolean', () => {
    expectTypeOf(isDenied(response)).toEqualTypeOf<boolean>();
  });

  it('rejects a word that is not an outcome', () => {
    // @ts-expect-error: 'unknown' is observed from outside, never a response's outcome
    isOutcome(response, 'unknown');
  });
});
