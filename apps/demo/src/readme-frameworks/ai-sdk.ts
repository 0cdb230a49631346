import { toAISDKTools } from '@candor/ai-sdk';
import { generateText, type LanguageModel, stepCountIs } from 'ai';
import { registry } from '../readme-example.ts';

export async function askWithAISDK(model: LanguageModel) {
  return await generateText({
    model,
    tools: toAISDKTools(registry),
    stopWhen: stepCountIs(3),
    prompt: 'What is 1 / 0?',
  });
}
