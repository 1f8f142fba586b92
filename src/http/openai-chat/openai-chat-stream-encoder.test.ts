import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkBody } from './encode-openai-chat-response.js';
import { textDeltaTemplate } from './openai-chat-stream-encoder.js';

describe('textDeltaTemplate', () => {
  it("gives chunkBody's bytes exactly for any text", () => {
    const base = { id: 'chatcmpl-"odd"\\id', created: 1_763_700_000, model: 'openai:gpt-4o-mini' };
    const template = textDeltaTemplate(base);
    const texts = ['Hello', '', ' word', 'quote " back\\slash', 'line\nbreak\ttab', 'nul \u0000 and \u001f', 'é ü 日本語 🙂', '\u2028\u2029', '</script>', '\ud800 lone'];
    for (const text of texts) {
      assert.equal(template(text), `data: ${chunkBody(base, { content: text }, null)}\n\n`, JSON.stringify(text));
      assert.equal((JSON.parse(template(text).slice(6)) as { choices: [{ delta: { content: string } }] }).choices[0].delta.content, text);
    }
  });
});
