/**
 * OpenTelemetry attribute names for tool calls. The GenAI names are copied from the GenAI
 * semantic conventions (`gen_ai.execute_tool` span and metric, status Development) instead of
 * being imported from `@opentelemetry/semantic-conventions/incubating`, as the JS SIG advises
 * libraries to do with unstable names. `error.type` is stable. The `candor.*` and
 * `agent_tool.*` names are our own namespace: no convention covers them.
 */
export const genAiAttributes = Object.freeze({
  OPERATION_NAME: 'gen_ai.operation.name',
  TOOL_NAME: 'gen_ai.tool.name',
  TOOL_CALL_ID: 'gen_ai.tool.call.id',
  TOOL_TYPE: 'gen_ai.tool.type',
  TOOL_DESCRIPTION: 'gen_ai.tool.description',
  ERROR_TYPE: 'error.type',
  CANDOR_OUTCOME: 'candor.tool.outcome',
  CANDOR_STAGE: 'candor.tool.stage',
  BREAKER_STATE: 'agent_tool.circuit_breaker.state',
  BREAKER_REJECTED: 'agent_tool.circuit_breaker.rejected',
});

/** `gen_ai.operation.name` of a tool call. */
export const EXECUTE_TOOL = 'execute_tool';

/** `gen_ai.tool.type` of a tool the application runs itself, which every registered tool is. */
export const FUNCTION_TOOL = 'function';

/** The histogram the conventions define for tool calls, in seconds. */
export const EXECUTE_TOOL_DURATION = 'gen_ai.execute_tool.duration';
