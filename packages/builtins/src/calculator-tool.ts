import { classifyError } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import {
  evaluateExpression,
  MAX_EXPRESSION_LENGTH,
} from './evaluate-expression.ts';
import { builtinTraits } from './builtin-annotations.ts';

/** Results above this magnitude are shown rounded, in scientific notation, as PARTIAL. */
export const LARGE_RESULT = 1e10;

/**
 * `calculator`: evaluates arithmetic with {@link evaluateExpression}, never `eval`.
 *
 * Outcomes: `2 + 3 * 4` is SUCCESS 14; a result above 1e10 is PARTIAL (`reason: 'rounded'`),
 * shown in scientific notation with `truncated: true` and the exact value in `data`; an empty
 * expression is INVALID_PARAM; `2 + abc` is INVALID_FORMAT; division by zero is EXECUTION_ERROR.
 *
 * @example
 * ```ts
 * registry.register(calculatorTool());
 * await registry.call('calculator', { expression: '(1 + 2) ** 3' }); // success, "27"
 * ```
 */
export function calculatorTool() {
  return defineTool({
    name: 'calculator',
    ...builtinTraits('calculator'),
    description:
      'Evaluates an arithmetic expression with numbers, + - * / % ** and parentheses, e.g. "2 + 3 * 4".',
    input: z.object({
      expression: z
        .string()
        .max(MAX_EXPRESSION_LENGTH)
        .describe('The arithmetic expression'),
    }),
    run: ({ expression }) => {
      let result: number;
      try {
        result = evaluateExpression(expression);
      } catch (error: unknown) {
        const { code, message } = classifyError(error);
        return ToolResponse.error(code, message, { data: { expression } });
      }
      if (Math.abs(result) <= LARGE_RESULT) {
        return ToolResponse.success(String(result), {
          data: { expression, result, truncated: false },
        });
      }
      const display = Number(result.toPrecision(7)).toExponential();
      return ToolResponse.partial(display, {
        reason: 'rounded',
        data: {
          expression,
          result,
          display,
          truncated: true,
          note: `The result is above ${LARGE_RESULT}; shown rounded to 7 significant digits`,
        },
      });
    },
  });
}
