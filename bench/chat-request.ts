/** The bench's small, realistic chat request (the upstream reports 19 prompt tokens for it), as a JSON body for `model`. */
export function chatRequestBody(model: string): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Say hello in one short sentence.' },
    ],
    max_tokens: 64,
  });
}
