import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../lib/errors.js';
import { decodeAnthropicMessagesRequest } from './decode-anthropic-messages-request.js';

describe('decodeAnthropicMessagesRequest: mid-conversation system messages', () => {
  it('keeps a system message where it stands, as Claude Code sends it', () => {
    const { chatRequest } = decodeAnthropicMessagesRequest({
      model: 'rt_x',
      max_tokens: 100,
      system: [{ type: 'text', text: 'You are a coding agent.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Fix the bug.' }] },
        { role: 'system', content: 'Available agent types: explore.' },
        { role: 'system', content: [{ type: 'text', text: 'Rule one.' }, { type: 'text', text: '  ' }] },
      ],
    });
    assert.deepEqual(chatRequest.messages, [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: [{ type: 'text', text: 'Fix the bug.' }] },
      { role: 'system', content: 'Available agent types: explore.' },
      { role: 'system', content: 'Rule one.' },
    ]);
  });

  it('refuses a block other than text in a system message, naming it', () => {
    assert.throws(
      () =>
        decodeAnthropicMessagesRequest({
          model: 'rt_x',
          max_tokens: 100,
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] },
          ],
        }),
      (error: unknown) => {
        assert.ok(error instanceof GatewayError);
        assert.equal(error.status, 400);
        assert.equal(error.param, 'messages[1].content[0].type');
        assert.match(error.message, /messages\[1\]\.content\[0\]: a system message cannot hold a 'image' block/);
        return true;
      },
    );
  });
});
