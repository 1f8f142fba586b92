import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequestActivity } from './request-activity.js';

test('counts every start and end except health and metrics probes', () => {
  const activity = createRequestActivity();
  for (const url of ['/api/r1/v1/chat/completions', '/healthz', '/metrics', '/v1/models', '/healthz?full=1']) activity.note(url);
  // '/healthz?full=1' is not the probe's exact path: counted, as any other request.
  assert.equal(activity.events, 3);
});
