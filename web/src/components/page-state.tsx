import { Alert, Button, EmptyState, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconRefresh } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { ApiError } from '../api/client';

/** A page's title, a sentence under it and its main action. */
export function PageHeader({ title, description, action }: { readonly title: ReactNode; readonly description?: ReactNode; readonly action?: ReactNode }) {
  return (
    <Group justify="space-between" align="flex-start" mb="lg" gap="sm">
      <Stack gap={4} style={{ flex: '1 1 280px', minWidth: 0 }}>
        <Title order={2}>{title}</Title>
        {description === undefined ? null : (
          <Text c="dimmed" size="sm">
            {description}
          </Text>
        )}
      </Stack>
      {action}
    </Group>
  );
}

/** Placeholder rows while a list loads. */
export function LoadingRows({ rows = 4, height = 44 }: { readonly rows?: number; readonly height?: number }) {
  return (
    <Stack gap="xs" aria-busy="true" aria-label="Loading">
      {Array.from({ length: rows }, (_, index) => (
        <Skeleton key={index} height={height} radius="sm" />
      ))}
    </Stack>
  );
}

/** The server's message in an alert, with a retry. */
export function ErrorAlert({ error, onRetry, title = 'Something went wrong' }: { readonly error: ApiError | Error; readonly onRetry?: () => void; readonly title?: string }) {
  return (
    <Alert color="red" variant="light" title={title} icon={<IconAlertTriangle size={18} />} role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{error.message}</Text>
        {onRetry === undefined ? null : (
          <Button size="xs" variant="light" color="red" leftSection={<IconRefresh size={14} />} onClick={onRetry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

/** What an empty list shows: what it will hold and how to start. */
export function EmptyPanel({ icon, title, description, action }: { readonly icon: ReactNode; readonly title: string; readonly description: ReactNode; readonly action?: ReactNode }) {
  return (
    <EmptyState icon={icon} title={title} description={description} variant="light" py="xl">
      {action === undefined ? null : <EmptyState.Actions>{action}</EmptyState.Actions>}
    </EmptyState>
  );
}
