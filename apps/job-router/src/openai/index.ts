export { OpenAiController } from './openai.controller';
