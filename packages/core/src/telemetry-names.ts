// Names from the OpenTelemetry GenAI semantic conventions (status Development), copied rather
// than imported from the incubating entry point, as the JS SIG advises for unstable names:
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/
export const OPERATION_NAME = 'gen_ai.operation.name';
export const PROVIDER_NAME = 'gen_ai.provider.name';
export const REQUEST_MODEL = 'gen_ai.request.model';
export const AGENT_NAME = 'gen_ai.agent.name';
export const INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const TOKEN_TYPE = 'gen_ai.token.type';
export const ERROR_TYPE = 'error.type';
export const RESPONSE_MODEL = 'gen_ai.response.model';
export const RESPONSE_ID = 'gen_ai.response.id';
// Included in the output tokens, as the convention asks:
// https://open-telemetry.github.io/opentelemetry-js/variables/_opentelemetry_semantic-conventions.incubating.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS.html
export const REASONING_TOKENS = 'gen_ai.usage.reasoning.output_tokens';

/** Attribute names of the agent's spans, GenAI convention names and Candor's own. */
export const agentAttributes = Object.freeze({
  OPERATION_NAME,
  PROVIDER_NAME,
  REQUEST_MODEL,
  AGENT_NAME,
  INPUT_TOKENS,
  OUTPUT_TOKENS,
  FINISH_REASONS,
  ERROR_TYPE,
  RESPONSE_MODEL,
  RESPONSE_ID,
  REASONING_TOKENS,
  INPUT_MESSAGES: 'gen_ai.input.messages',
  OUTPUT_MESSAGES: 'gen_ai.output.messages',
  SYSTEM_INSTRUCTIONS: 'gen_ai.system_instructions',
  STOP_REASON: 'candor.agent.stop_reason',
  BUDGET_EXHAUSTED: 'candor.agent.error_budget.exhausted',
  RETRY_ATTEMPT: 'candor.retry.attempt',
  RETRY_DELAY_MS: 'candor.retry.delay_ms',
});

export const TOKEN_BOUNDARIES = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
  16777216, 67108864,
];
export const DURATION_BOUNDARIES = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
  40.96, 81.92,
];
