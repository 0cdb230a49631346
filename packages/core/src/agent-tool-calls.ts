import {
  outcomeOf,
  toolResultForModel,
  type ToolResponse,
  type ToolResultForModelOptions,
} from '@candor/tools';
import { type AgentToolCall } from './agent-events.ts';
import { type ChatMessage, type ModelToolCall } from './chat-model.ts';

/** Each call with its response, its outcome and what the model is shown of it, in call order. */
export function agentToolCalls(
  calls: readonly ModelToolCall[],
  responses: readonly ToolResponse[],
  options: ToolResultForModelOptions,
): AgentToolCall[] {
  return calls.map((call, position) => {
    const response = responses[position];
    if (response === undefined)
      throw new Error('registry.call returned nothing');
    return {
      call,
      response,
      outcome: outcomeOf(response),
      sentToModel: toolResultForModel(response, call.name, options),
    };
  });
}

/** The tool turn that carries the results back, the failed ones with their code. */
export function toolMessage(toolCalls: readonly AgentToolCall[]): ChatMessage {
  return {
    role: 'tool',
    results: toolCalls.map((entry) => ({
      callId: entry.call.id,
      toolName: entry.call.name,
      content: entry.sentToModel.content,
      isError: entry.sentToModel.isError,
      ...(entry.sentToModel.isError && entry.response.status === 'error'
        ? { code: entry.response.errorInfo.code }
        : {}),
    })),
  };
}
