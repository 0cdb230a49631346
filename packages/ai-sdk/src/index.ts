/**
 * Candor inside the Vercel AI SDK: the registry's tools as an AI SDK `ToolSet`, and any
 * AI SDK language model as a Candor `ChatModel`.
 *
 * @packageDocumentation
 * @module \@candor/ai-sdk
 */
export { toAISDKTools } from './to-ai-sdk-tools.ts';
export type { AISDKToolsOptions } from './to-ai-sdk-tools.ts';
export type { NeedsApproval } from '@candor/tools';
export { fromLanguageModel } from './from-language-model.ts';
export type { FromLanguageModelOptions } from './from-language-model.ts';
export { activeToolNames, hideOpenCircuits } from './active-tool-names.ts';
