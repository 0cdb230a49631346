/**
 * Candor inside the OpenAI Agents SDK: the registry's tools as function tools whose output
 * is Candor's truthful outcome text.
 *
 * @packageDocumentation
 * @module \@candor/openai-agents
 */
export { toOpenAIAgentsTools } from './to-open-ai-agents-tools.ts';
export type { OpenAIAgentsToolsOptions } from './to-open-ai-agents-tools.ts';
// Shared by every adapter, from @candor/tools.
export type { NeedsApproval } from '@candor/tools';
