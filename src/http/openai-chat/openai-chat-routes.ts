import type { FastifyInstance } from 'fastify';
import type { AppDependencies } from '../dependencies.js';
import { requireBody, routedHandler } from '../routed-endpoint.js';
import { openAIChatRequestSchema } from './openai-chat-request-schema.js';
import { openAIChatSurface } from './openai-chat-surface.js';

/** The base address is `{host}/api/router` or `…/v1`; a router id in the path wins over `model` (spec 4.1). */
export const CHAT_COMPLETION_PATHS = [
  '/api/router/chat/completions',
  '/api/router/v1/chat/completions',
  '/api/router/:routerId/chat/completions',
  '/api/router/v1/:routerId/chat/completions',
] as const;

/** POST …/chat/completions: routers, and agents by `model: "agent:<name>"`. */
export function registerOpenAIChat(app: FastifyInstance, deps: AppDependencies): void {
  const handler = routedHandler(openAIChatSurface, deps, { agents: true });
  for (const path of CHAT_COMPLETION_PATHS) app.post(path, { schema: { body: openAIChatRequestSchema }, preValidation: requireBody }, handler);
}
