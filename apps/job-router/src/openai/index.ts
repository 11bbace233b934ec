export { openAiRoutes } from './openai-routes';
