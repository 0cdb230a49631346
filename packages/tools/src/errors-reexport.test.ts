import * as errors from '@candor/errors';
import { describe, expect, it } from 'vitest';
import * as tools from './index.ts';

describe('@candor/tools re-exports what a tool throws', () => {
  it('gives the very ToolError, classifyError and ToolErrorCode of @candor/errors', () => {
    expect(tools.ToolError).toBe(errors.ToolError);
    expect(tools.classifyError).toBe(errors.classifyError);
    expect(tools.ToolErrorCode).toBe(errors.ToolErrorCode);
  });

  it('classifies a ToolError thrown through the re-export by its own code', () => {
    const thrown = new tools.ToolError({ code: 'NOT_FOUND', message: 'gone' });
    expect(tools.classifyError(thrown).code).toBe('NOT_FOUND');
  });
});
