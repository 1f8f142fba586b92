import { Badge, Button, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconPlus, IconRobot } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { workspacePath } from '../api/client';
import type { Agent } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { formatCountOf, formatRelative } from '../components/format';
import { EmptyPanel, ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { canWrite, useWorkspace } from '../session/session-context';

export { AgentEditPage, AgentNewPage } from './agents-form-page';
export { AgentDetailPage } from './agents-detail-page';
export { ExecutionPage } from './agents-execution-page';

/** Agents of the workspace. */
export function AgentsPage() {
  const workspace = useWorkspace();
  const agents = useApi<unknown>(workspacePath(workspace.id, '/agents'));
  const list = listOf<Agent>(agents.data);
  const create = canWrite(workspace) ? (
    <Button component={Link} to="/agents/new" leftSection={<IconPlus size={16} />}>
      New agent
    </Button>
  ) : undefined;
  return (
    <>
      <PageHeader title="Agents" description="Multi-step workflows over your routers, called with model agent:<name>." action={list.length === 0 ? undefined : create} />
      {agents.error !== null ? (
        <ErrorAlert error={agents.error} onRetry={agents.reload} />
      ) : agents.data === undefined ? (
        <LoadingRows />
      ) : list.length === 0 ? (
        <EmptyPanel icon={<IconRobot size={28} />} title="No agents yet" description="An agent chains model calls: research, then summarise; classify, then answer. Each step goes through a router." action={create} />
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          {list.map((agent) => (
            <Card key={agent.name} withBorder radius="md" component={Link} to={`/agents/${encodeURIComponent(agent.name)}`} aria-label={`agent:${agent.name}`}>
              <Stack gap={6}>
                <Group justify="space-between" wrap="nowrap">
                  <Text fw={600} ff="monospace">
                    agent:{agent.name}
                  </Text>
                  <Group gap={6} wrap="nowrap">
                    <Badge variant="light">{formatCountOf(agent.definition.steps.length, 'step')}</Badge>
                    <Badge variant="outline" color="gray">
                      v{agent.version}
                    </Badge>
                  </Group>
                </Group>
                <Text size="sm" c="dimmed" lineClamp={2}>
                  {agent.description === '' ? agent.definition.steps.map((step) => step.name).join(' → ') : agent.description}
                </Text>
                <Text size="xs" c="dimmed">
                  Saved {formatRelative(agent.updatedAt)}
                </Text>
              </Stack>
            </Card>
          ))}
        </SimpleGrid>
      )}
    </>
  );
}
