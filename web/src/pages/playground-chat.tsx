import { ActionIcon, Alert, Button, Card, Group, Loader, Paper, ScrollArea, Slider, Stack, Text, Textarea, Tooltip } from '@mantine/core';
import { IconPlayerStop, IconSend, IconTrash } from '@tabler/icons-react';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { ApiError, workspacePath } from '../api/client';
import { streamChat, type ChatMessage } from '../api/stream-chat';
import { FeedbackThumbs } from '../components/feedback-thumbs';
import { canWrite, useSession, useWorkspace } from '../session/session-context';
import { MetaLine } from './playground-meta';

interface Turn {
  readonly id: number;
  readonly role: 'user' | 'assistant';
  content: string;
  meta?: Record<string, unknown> | null;
  error?: string;
  pending?: boolean;
}

/** Chat with a chat router: the answer streams in, then the `_meta` of the turn. `routerSelect` heads the settings. */
export function ChatPlayground({ routerId, routerSelect }: { readonly routerId: string; readonly routerSelect: ReactNode }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [system, setSystem] = useState('');
  const [temperature, setTemperature] = useState(1);
  const [input, setInput] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  const viewport = useRef<HTMLDivElement>(null);
  const nextId = useRef(0);

  useEffect(() => {
    viewport.current?.scrollTo({ top: viewport.current.scrollHeight });
  }, [turns]);
  useEffect(() => () => abortRef.current?.abort(), []);

  const update = (id: number, change: Partial<Turn>) => setTurns((current) => current.map((turn) => (turn.id === id ? { ...turn, ...change } : turn)));

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const text = input.trim();
    if (text === '' || busy) return;
    const userTurn: Turn = { id: nextId.current++, role: 'user', content: text };
    const answer: Turn = { id: nextId.current++, role: 'assistant', content: '', pending: true };
    const history: ChatMessage[] = [
      ...(system.trim() === '' ? [] : [{ role: 'system' as const, content: system.trim() }]),
      ...turns.filter((turn) => turn.error === undefined).map((turn) => ({ role: turn.role, content: turn.content })),
      { role: 'user', content: text },
    ];
    setTurns((current) => [...current, userTurn, answer]);
    setInput('');
    setBusy(true);
    const controller = new AbortController();
    abortRef.current = controller;
    let content = '';
    try {
      const result = await streamChat({
        api,
        path: workspacePath(workspace.id, '/playground/chat'),
        body: { model: routerId, messages: history, temperature },
        signal: controller.signal,
        onDelta(delta) {
          content += delta;
          update(answer.id, { content });
        },
      });
      update(answer.id, { pending: false, meta: result.meta, ...(result.complete ? {} : { error: 'The answer was cut off.' }) });
    } catch (caught) {
      const message = controller.signal.aborted ? 'Stopped.' : caught instanceof ApiError ? caught.message : String(caught);
      update(answer.id, { pending: false, error: message });
    } finally {
      setBusy(false);
      abortRef.current = null;
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <>
      <Card withBorder radius="md" padding="md">
        <Group align="flex-end" gap="md">
          {routerSelect}
          <Stack gap={4} style={{ flex: '1 1 200px' }}>
            <Text size="sm" fw={500} id="temperature-label">
              Temperature {temperature.toFixed(1)}
            </Text>
            <Slider min={0} max={2} step={0.1} value={temperature} onChange={setTemperature} aria-labelledby="temperature-label" mb={8} />
          </Stack>
          <Tooltip label="Clear the conversation">
            <ActionIcon variant="default" size="lg" onClick={() => setTurns([])} disabled={busy || turns.length === 0} aria-label="Clear the conversation">
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
        <Textarea label="System prompt" placeholder="Optional: how the assistant should behave" autosize minRows={1} maxRows={4} mt="sm" value={system} onChange={(event) => setSystem(event.currentTarget.value)} />
      </Card>
      <Paper withBorder radius="md">
        <ScrollArea h="calc(100vh - 480px)" mih={260} viewportRef={viewport} type="auto">
          <Stack p="md" gap="md" data-testid="chat-log" aria-live="polite">
            {turns.length === 0 ? (
              <Text c="dimmed" ta="center" py="xl" size="sm">
                Send a message to see which model the router picks.
              </Text>
            ) : (
              turns.map((turn) => (
                <Stack key={turn.id} gap={0} align={turn.role === 'user' ? 'flex-end' : 'flex-start'} data-testid={`turn-${turn.role}`}>
                  <Paper
                    px="md"
                    py="sm"
                    radius="lg"
                    maw="85%"
                    bg={turn.role === 'user' ? 'var(--mantine-primary-color-filled)' : 'var(--mantine-color-default-hover)'}
                    {...(turn.role === 'user' ? { c: 'white' } : {})}
                  >
                    {turn.pending === true && turn.content === '' ? <Loader size="xs" type="dots" aria-label="Waiting for the answer" /> : <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{turn.content}</Text>}
                  </Paper>
                  {turn.error === undefined ? null : (
                    <Alert color="red" variant="light" mt={6} p="xs" role="alert">
                      {turn.error}
                    </Alert>
                  )}
                  {turn.meta === undefined || turn.meta === null ? null : <MetaLine meta={turn.meta} />}
                  {canWrite(workspace) && turn.meta?.routerDecision === 'auto' && typeof turn.meta.requestId === 'string' ? <FeedbackThumbs requestId={turn.meta.requestId} note /> : null}
                </Stack>
              ))
            )}
          </Stack>
        </ScrollArea>
        <form onSubmit={(event) => void send(event)} style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
          <Group p="sm" align="flex-end" wrap="nowrap">
            <Textarea aria-label="Message" placeholder="Message (Enter to send, Shift+Enter for a new line)" autosize minRows={1} maxRows={6} value={input} onChange={(event) => setInput(event.currentTarget.value)} onKeyDown={onKeyDown} style={{ flex: 1 }} />
            {busy ? (
              <Button color="gray" leftSection={<IconPlayerStop size={16} />} onClick={() => abortRef.current?.abort()}>
                Stop
              </Button>
            ) : (
              <Button type="submit" leftSection={<IconSend size={16} />} disabled={input.trim() === ''}>
                Send
              </Button>
            )}
          </Group>
        </form>
      </Paper>
    </>
  );
}
