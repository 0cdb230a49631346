// Type-checked under node16 and bundler resolution: each adapter's result is what its framework
// accepts, by the framework's own types.
import { toAISDKTools } from '@candor/ai-sdk';
import { type CandorArtifact, toLangChainTools } from '@candor/langchain';
import { toOpenAIAgentsTools } from '@candor/openai-agents';
import { ToolRegistry } from '@candor/registry';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Agent } from '@openai/agents';
import type { ToolSet } from 'ai';

const registry = new ToolRegistry();
export const aiSdkTools: ToolSet = toAISDKTools(registry, {
  needsApproval: (name) => name === 'divide',
});
export const langChainTools: StructuredToolInterface[] =
  toLangChainTools(registry);
export const agent = new Agent({
  name: 'calculator',
  tools: toOpenAIAgentsTools(registry, { needsApproval: true }),
});
export function codeOf(artifact: CandorArtifact): string | undefined {
  return artifact.code;
}
