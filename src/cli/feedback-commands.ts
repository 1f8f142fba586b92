import { AdminInputError } from '../admin/admin-errors.js';
import type { CommandSpec } from './command.js';
import { isoTime } from './output.js';

/** Who scored, in the labels' `key_id`: one label per request and owner from the command line, as per key or per person. */
export const cliRaterId = (ownerEmail: string): string => `cli:${ownerEmail.trim().toLowerCase()}`;

/** A score 0..1 as people type it: 1, 0, 0.5. */
function parseScore(text: string): number {
  const trimmed = text.trim();
  const score = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(score >= 0 && score <= 1)) throw new AdminInputError(`--score must be a number from 0 (a bad answer) to 1 (a good one), not "${text}".`);
  return score;
}

const addFeedback: CommandSpec = {
  noun: 'feedback',
  verb: 'add',
  summary: "Score an auto router's answer, so the router learns from it",
  description:
    'Stores a label for the prompt an auto-routed request carried (its _meta.requestId): 1 for a good answer, 0 for a bad one, or anything between. The router refits from its labels in the background. Only requests of the owner\'s routers that auto routed; a repeat replaces the score and comment given from the command line before. "modelport feedback <request-id>" is short for this.',
  positional: { valueName: 'request-id', description: 'The request to score (req_..., the _meta.requestId of its answer)' },
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user whose router answered' },
    score: { type: 'string', valueName: '0..1', required: true, description: '1 a good answer, 0 a bad one' },
    comment: { type: 'string', valueName: 'text', description: 'What was wrong or right, at most 2,000 characters' },
  },
  examples: ['modelport feedback req_01J8Z3 --owner owner@example.com --score 0 --comment "wrong unit"', 'modelport feedback add req_01J8Z3 --owner owner@example.com --score 1 --json'],
  async run(options, context) {
    const requestId = options.positional();
    if (requestId === undefined || requestId.trim() === '') throw new AdminInputError('Give the request id to score: modelport feedback <request-id> --owner <email> --score 0..1.');
    const score = parseScore(options.requiredString('score'));
    const comment = options.string('comment');
    if (comment !== undefined && comment.length > 2000) throw new AdminInputError('--comment may have at most 2,000 characters.');
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner');
    const label = await admin.recordFeedback({ ownerEmail, requestId, raterId: cliRaterId(ownerEmail), score, comment });
    return {
      json: { feedback: { id: label.id, requestId, routerId: label.routerId, model: label.modelId, score: label.score, comment: label.comment, createdAt: isoTime(label.createdAt) } },
      stdout: `${label.id}\n`,
      stderr: `Scored ${requestId} ${label.score} (${label.modelId} on router ${label.routerId}); the router refits in the background.\n`,
    };
  },
};

export const feedbackCommands: readonly CommandSpec[] = [addFeedback];
