import { toOpenAIAgentsTools } from '@candor/openai-agents';
import { Agent, type Model, run } from '@openai/agents';
import { registry } from '../readme-example.ts';

export async function askWithOpenAIAgents(model: Model | string) {
  const agent = new Agent({
    name: 'calculator',
    model,
    tools: toOpenAIAgentsTools(registry),
  });
  return await run(agent, 'What is 1 / 0?');
}
