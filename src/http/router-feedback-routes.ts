import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { MAX_FEEDBACK_COMMENT, recordFeedback } from '../admin/router-learning.js';
import { AdminInputError } from '../admin/admin-errors.js';
import { GatewayError, errors } from '../lib/errors.js';
import { dismissCall } from '../pipeline/call-settlement.js';
import type { AppDependencies } from './dependencies.js';
import { requireBody } from './routed-endpoint.js';

/** The base address is `{host}/api/router` or `…/v1`, as for chat completions. */
export const FEEDBACK_PATHS = ['/api/router/feedback', '/api/router/v1/feedback'] as const;

const feedbackBody = Type.Object({
  // Request ids are `req_` and 22 characters; anything much longer cannot be one.
  request_id: Type.String({ minLength: 1, maxLength: 128 }),
  score: Type.Number({ minimum: 0, maximum: 1 }),
  comment: Type.Optional(Type.String({ maxLength: MAX_FEEDBACK_COMMENT })),
});

/**
 * `POST {base}/feedback`: a score (0..1) of an `auto` request's answer, from a key of the request's owner. It becomes
 * a label of the prompt's features and the model that answered, which the router refits from in the background
 * (docs/api.md). One label per request and key: a repeat replaces the score and comment and keeps the label's id.
 * Feedback is not usage: no usage record is written (the key's requests per minute still count it).
 */
export async function routerFeedbackApi(app: FastifyInstance, deps: AppDependencies): Promise<void> {
  app.addHook('onRequest', async (request) => {
    dismissCall(request.gateway);
  });

  for (const path of FEEDBACK_PATHS) {
    app.post<{ Body: Static<typeof feedbackBody> }>(path, { schema: { body: feedbackBody }, preValidation: requireBody }, async (request) => {
      const key = request.gateway.key;
      if (key === undefined) throw errors.invalidApiKey();
      const learning = deps.routerLearning;
      if (learning === undefined) throw feedbackNotFound('This server keeps no routing samples, so feedback cannot be stored.');
      const body = request.body;
      let result;
      try {
        result = await recordFeedback(learning, {
          ownerId: key.ownerId,
          requestId: body.request_id,
          raterId: key.id,
          score: body.score,
          comment: body.comment,
          routerIds: key.routerIds,
        });
      } catch (error) {
        if (error instanceof AdminInputError) throw errors.invalidRequest(error.message, error.field ?? null);
        throw error;
      }
      if (result.label === undefined) throw feedbackNotFound(result.notFound);
      const label = result.label;
      return {
        id: label.id,
        object: 'router.feedback',
        request_id: label.requestId,
        score: label.score,
        comment: label.comment,
        model: label.modelId,
        router: label.routerId,
        created_at: Math.floor(label.createdAt / 1000),
      };
    });
  }
}

function feedbackNotFound(message: string): GatewayError {
  return new GatewayError(404, 'not_found_error', 'not_found', message, { param: 'request_id' });
}
