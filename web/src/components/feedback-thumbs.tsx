import { ActionIcon, Group, Text, Tooltip } from '@mantine/core';
import { IconThumbDown, IconThumbDownFilled, IconThumbUp, IconThumbUpFilled } from '@tabler/icons-react';
import { useState } from 'react';
import { ApiError, workspacePath } from '../api/client';
import type { Feedback } from '../api/types';
import { useSession, useWorkspace } from '../session/session-context';

/**
 * Thumbs up (score 1) or down (0) on an `auto` request's answer: a label its router learns from. Clicking again
 * replaces the score; the chosen thumb stays filled, and a refusal shows beside them.
 */
export function FeedbackThumbs({ requestId, size = 'sm', note = false }: { readonly requestId: string; readonly size?: 'xs' | 'sm'; /** Say, once rated, that the router learns from it. */ readonly note?: boolean }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [score, setScore] = useState<number | null>(null);
  const [pending, setPending] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const rate = async (value: number) => {
    setPending(value);
    setError(null);
    const path = workspacePath(workspace.id, `/usage/requests/${encodeURIComponent(requestId)}/feedback`);
    try {
      // The server waits for a fresh answer's usage record (written in batches) before it answers 404.
      const saved = await api.send<Feedback>('POST', path, { score: value });
      setScore(saved.score);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setPending(null);
    }
  };

  const iconSize = size === 'xs' ? 14 : 16;
  return (
    <Group gap={4} wrap="nowrap" data-testid="feedback-thumbs" data-score={score === null ? '' : String(score)}>
      <Tooltip label="Good answer">
        <ActionIcon
          variant={score === 1 ? 'light' : 'subtle'}
          color={score === 1 ? 'teal' : 'gray'}
          size={size}
          aria-label="Good answer"
          aria-pressed={score === 1}
          loading={pending === 1}
          disabled={pending !== null}
          onClick={() => void rate(1)}
        >
          {score === 1 ? <IconThumbUpFilled size={iconSize} /> : <IconThumbUp size={iconSize} />}
        </ActionIcon>
      </Tooltip>
      <Tooltip label="Bad answer">
        <ActionIcon
          variant={score === 0 ? 'light' : 'subtle'}
          color={score === 0 ? 'red' : 'gray'}
          size={size}
          aria-label="Bad answer"
          aria-pressed={score === 0}
          loading={pending === 0}
          disabled={pending !== null}
          onClick={() => void rate(0)}
        >
          {score === 0 ? <IconThumbDownFilled size={iconSize} /> : <IconThumbDown size={iconSize} />}
        </ActionIcon>
      </Tooltip>
      {!note || score === null || error !== null ? null : (
        <Text size="xs" c="dimmed">
          Thanks: the router learns from it.
        </Text>
      )}
      {error === null ? null : (
        <Text size="xs" c="red" role="alert" style={{ whiteSpace: 'normal' }}>
          {error}
        </Text>
      )}
    </Group>
  );
}
