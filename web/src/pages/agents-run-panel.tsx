import { Alert, Button, Group, Paper, Stack, Switch, Text, Textarea, Title } from '@mantine/core';
import { IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, workspacePath } from '../api/client';
import { streamChat } from '../api/stream-chat';
import type { AgentMeta } from '../api/types';
import { useSession, useWorkspace } from '../session/session-context';
import { AgentMetaView } from './agents-meta';

interface RunAnswer {
  readonly choices: readonly { readonly message: { readonly content: string | null } }[];
  readonly _meta: AgentMeta;
}

/** The agent's playground: runs it on a text, the answer streams in, then the agent `_meta`. */
export function AgentRunPanel({ name, onFinished }: { readonly name: string; readonly onFinished: () => void }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [input, setInput] = useState('');
  const [stream, setStream] = useState(true);
  const [answer, setAnswer] = useState('');
  const [meta, setMeta] = useState<AgentMeta | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  useEffect(() => () => abortRef.current?.abort(), []);
  const path = workspacePath(workspace.id, `/agents/${encodeURIComponent(name)}/run`);

  const run = async (event: FormEvent) => {
    event.preventDefault();
    if (input.trim() === '' || busy) return;
    const controller = new AbortController();
    abortRef.current = controller;
    setBusy(true);
    setAnswer('');
    setMeta(null);
    setError(null);
    try {
      if (stream) {
        const result = await streamChat({ api, path, body: { input }, signal: controller.signal, onDelta: (text) => setAnswer((current) => current + text) });
        setMeta(result.meta as AgentMeta | null);
        if (!result.complete) setError('The answer stopped before the end.');
      } else {
        const result = await api.send<RunAnswer>('POST', path, { input });
        setAnswer(result.choices[0]?.message.content ?? '');
        setMeta(result._meta);
      }
    } catch (caught) {
      if (!(caught instanceof DOMException && caught.name === 'AbortError')) setError(caught instanceof ApiError || caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
      abortRef.current = null;
      onFinished();
    }
  };

  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-label="Run the agent">
      <Stack>
        <Title order={4}>Run</Title>
        <form onSubmit={(event) => void run(event)}>
          <Stack gap="sm">
            <Textarea
              label="Input"
              description="Sent as the user message: the steps read it as {{input}}. Ctrl+Enter runs."
              autosize
              minRows={2}
              maxRows={8}
              value={input}
              onChange={(event) => setInput(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void run(event);
              }}
            />
            <Group justify="space-between">
              <Switch label="Stream the answer" checked={stream} onChange={(event) => setStream(event.currentTarget.checked)} />
              {busy ? (
                <Button type="button" variant="light" color="red" leftSection={<IconPlayerStop size={16} />} onClick={() => abortRef.current?.abort()}>
                  Stop
                </Button>
              ) : (
                <Button type="submit" leftSection={<IconPlayerPlay size={16} />} disabled={input.trim() === ''}>
                  Run agent
                </Button>
              )}
            </Group>
          </Stack>
        </form>
        {error === null ? null : (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        {answer === '' && !busy ? null : (
          <Paper bg="var(--mantine-color-default-hover)" p="md" radius="md" aria-live="polite" data-testid="agent-answer">
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {answer === '' ? 'Running…' : answer}
            </Text>
          </Paper>
        )}
        {meta === null ? null : <AgentMetaView meta={meta} />}
      </Stack>
    </Paper>
  );
}
