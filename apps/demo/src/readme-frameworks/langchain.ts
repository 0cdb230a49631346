import { toLangChainTools } from '@candor/langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { createAgent } from 'langchain';
import { registry } from '../readme-example.ts';

export async function askWithLangChain(model: BaseChatModel) {
  const agent = createAgent({ model, tools: toLangChainTools(registry) });
  return await agent.invoke({
    messages: [{ role: 'user', content: 'What is 1 / 0?' }],
  });
}
