import type { ModelKind } from '../api/types';

/** Ready-to-paste code that calls a router, for the router's page. */
export interface Snippet {
  readonly id: string;
  readonly label: string;
  readonly code: string;
}

/**
 * @param baseUrl the gateway's OpenAI base, e.g. https://gateway.example.com/api/router/v1
 * @param routerId the router's id, sent as the model
 * @param kind what the router serves: chat completions, or embeddings
 */
export function routerSnippets(baseUrl: string, routerId: string, kind: ModelKind = 'chat'): readonly Snippet[] {
  return kind === 'embedding' ? embeddingSnippets(baseUrl, routerId) : chatSnippets(baseUrl, routerId);
}

function embeddingSnippets(baseUrl: string, routerId: string): readonly Snippet[] {
  return [
    {
      id: 'curl',
      label: 'curl',
      code: `curl ${baseUrl}/embeddings \\
  -H "Authorization: Bearer $MODELPORT_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{
    "model": "${routerId}",
    "input": ["The first text", "The second text"]
  }'`,
    },
    {
      id: 'python',
      label: 'OpenAI Python',
      code: `import os
from openai import OpenAI

client = OpenAI(
    base_url="${baseUrl}",
    api_key=os.environ["MODELPORT_API_KEY"],
)

result = client.embeddings.create(
    model="${routerId}",  # every model of the router gives comparable vectors
    input=["The first text", "The second text"],
)
print(len(result.data[0].embedding))
print(result.model_extra["_meta"])  # model used, cost, latency, carbon`,
    },
    {
      id: 'node',
      label: 'OpenAI Node',
      code: `// app.mjs (an ES module: top-level await)
import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: '${baseUrl}',
  apiKey: process.env.MODELPORT_API_KEY,
});

const result = await client.embeddings.create({
  model: '${routerId}', // every model of the router gives comparable vectors
  input: ['The first text', 'The second text'],
});
console.log(result.data[0].embedding.length);
console.log(result._meta); // model used, cost, latency, carbon`,
    },
    {
      id: 'vercel',
      label: 'Vercel AI SDK',
      code: `import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany } from 'ai';

const modelport = createOpenAICompatible({
  name: 'modelport',
  baseURL: '${baseUrl}',
  apiKey: process.env.MODELPORT_API_KEY,
});

const { embeddings } = await embedMany({
  model: modelport.embeddingModel('${routerId}'),
  values: ['The first text', 'The second text'],
});
console.log(embeddings[0].length);`,
    },
  ];
}

function chatSnippets(baseUrl: string, routerId: string): readonly Snippet[] {
  return [
    {
      id: 'curl',
      label: 'curl',
      code: `curl ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer $MODELPORT_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{
    "model": "${routerId}",
    "messages": [{ "role": "user", "content": "Hello!" }]
  }'`,
    },
    {
      id: 'python',
      label: 'OpenAI Python',
      code: `import os
from openai import OpenAI

client = OpenAI(
    base_url="${baseUrl}",
    api_key=os.environ["MODELPORT_API_KEY"],
)

completion = client.chat.completions.create(
    model="${routerId}",  # the router picks the model
    messages=[{"role": "user", "content": "Hello!"}],
)
print(completion.choices[0].message.content)
print(completion.model_extra["_meta"])  # model used, cost, latency, carbon`,
    },
    {
      id: 'node',
      label: 'OpenAI Node',
      code: `// app.mjs (an ES module: top-level await)
import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: '${baseUrl}',
  apiKey: process.env.MODELPORT_API_KEY,
});

const completion = await client.chat.completions.create({
  model: '${routerId}', // the router picks the model
  messages: [{ role: 'user', content: 'Hello!' }],
});
console.log(completion.choices[0].message.content);
console.log(completion._meta); // model used, cost, latency, carbon`,
    },
    {
      id: 'vercel',
      label: 'Vercel AI SDK',
      code: `import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText } from 'ai';

const modelport = createOpenAICompatible({
  name: 'modelport',
  baseURL: '${baseUrl}',
  apiKey: process.env.MODELPORT_API_KEY,
});

const result = streamText({
  model: modelport('${routerId}'),
  prompt: 'Hello!',
});
for await (const text of result.textStream) process.stdout.write(text);`,
    },
  ];
}
