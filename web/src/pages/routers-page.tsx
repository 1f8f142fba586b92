import { Badge, Button, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconPlus, IconRoute } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { workspacePath } from '../api/client';
import type { Router, Strategy } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { CopyIcon } from '../components/copy-value';
import { formatRelative } from '../components/format';
import { EmptyPanel, ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { canWrite, useWorkspace } from '../session/session-context';

/** Routers of the current workspace, as cards. */
export function RoutersPage() {
  const workspace = useWorkspace();
  const routers = useApi<unknown>(workspacePath(workspace.id, '/routers'));
  const strategies = useApi<unknown>('/strategies');
  const strategyLabel = (id: string) => listOf<Strategy>(strategies.data).find((strategy) => strategy.id === id)?.label ?? id;
  const list = listOf<Router>(routers.data);
  const newButton = canWrite(workspace) ? (
    <Button component={Link} to="/routers/new" leftSection={<IconPlus size={16} />}>
      New router
    </Button>
  ) : undefined;

  return (
    <>
      <PageHeader title="Routers" description="A router picks a model for each request by its strategy. Apps send its ID as the model." action={list.length > 0 ? newButton : undefined} />
      {routers.error !== null ? (
        <ErrorAlert error={routers.error} onRetry={routers.reload} title="Could not load routers" />
      ) : routers.data === undefined ? (
        <LoadingRows rows={3} height={110} />
      ) : list.length === 0 ? (
        <EmptyPanel
          icon={<IconRoute size={28} />}
          title="No routers yet"
          description="Create a router: choose the models it may use and how it should pick between them. Then point any OpenAI client at it."
          action={newButton}
        />
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
          {list.map((router) => (
            <Card key={router.id} withBorder padding="lg" radius="md" data-testid="router-card">
              <Stack gap="xs" h="100%">
                <Group justify="space-between" wrap="nowrap" align="flex-start">
                  <Text component={Link} to={`/routers/${router.id}`} fw={600} size="lg" style={{ color: 'inherit', textDecoration: 'none' }} lineClamp={1}>
                    {router.name}
                  </Text>
                  <Group gap={4} wrap="nowrap">
                    <Badge variant="light" color={router.kind === 'embedding' ? 'teal' : 'blue'} data-testid="router-kind">
                      {router.kind === 'embedding' ? 'Embeddings' : 'Chat'}
                    </Badge>
                    <Badge variant="light">{strategyLabel(router.strategy)}</Badge>
                  </Group>
                </Group>
                <Group gap={4} wrap="nowrap">
                  <Text ff="monospace" size="xs" c="dimmed" truncate>
                    {router.id}
                  </Text>
                  <CopyIcon value={router.id} label="Copy router ID" />
                </Group>
                <Group gap={4}>
                  {router.models.slice(0, 4).map((model) => (
                    <Badge key={model} variant="outline" color="gray" size="sm" tt="none">
                      {model}
                    </Badge>
                  ))}
                  {router.models.length > 4 ? (
                    <Badge variant="outline" color="gray" size="sm">
                      +{router.models.length - 4}
                    </Badge>
                  ) : null}
                </Group>
                <Group justify="space-between" mt="auto" pt="xs">
                  <Text size="xs" c="dimmed">
                    {router.updatedAt === undefined ? '' : `Updated ${formatRelative(router.updatedAt)}`}
                  </Text>
                  <Button component={Link} to={`/routers/${router.id}`} variant="light" size="xs">
                    Open
                  </Button>
                </Group>
              </Stack>
            </Card>
          ))}
        </SimpleGrid>
      )}
    </>
  );
}
