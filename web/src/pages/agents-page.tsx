import { Badge, Button, Card, Code, Group, Stack, Table, Text } from '@mantine/core';
import { IconRobot } from '@tabler/icons-react';
import { Link, useParams } from 'react-router-dom';
import { workspacePath } from '../api/client';
import type { Agent, Execution } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { formatDateTime, formatMs, formatUsd } from '../components/format';
import { EmptyPanel, ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { useWorkspace } from '../session/session-context';

const notYet = (
  <EmptyPanel icon={<IconRobot size={28} />} title="Agents are not available on this server yet" description="Multi-step agents arrive with a later release of the gateway." />
);

/** Agents of the workspace (the server's agents endpoints come with another branch). */
export function AgentsPage() {
  const workspace = useWorkspace();
  const agents = useApi<unknown>(workspacePath(workspace.id, '/agents'));
  if (agents.error?.status === 404) return notYet;
  const list = listOf<Agent>(agents.data);
  return (
    <>
      <PageHeader title="Agents" description="Multi-step workflows, called with model agent:<name>." />
      {agents.error !== null ? (
        <ErrorAlert error={agents.error} onRetry={agents.reload} />
      ) : agents.data === undefined ? (
        <LoadingRows />
      ) : list.length === 0 ? (
        <EmptyPanel icon={<IconRobot size={28} />} title="No agents yet" description="Agents chain router calls into a workflow." />
      ) : (
        <Stack>
          {list.map((agent) => (
            <Card key={agent.name} withBorder radius="md" component={Link} to={`/agents/${encodeURIComponent(agent.name)}`}>
              <Group justify="space-between">
                <Text fw={600}>{agent.name}</Text>
                <Badge variant="light">{agent.steps.length} steps</Badge>
              </Group>
              {agent.description === undefined ? null : (
                <Text size="sm" c="dimmed">
                  {agent.description}
                </Text>
              )}
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}

/** One agent, its steps and its executions. */
export function AgentEditPage() {
  const workspace = useWorkspace();
  const { name = '' } = useParams();
  const agent = useApi<Agent>(name === '' ? null : workspacePath(workspace.id, `/agents/${encodeURIComponent(name)}`));
  const executions = useApi<unknown>(name === '' ? null : workspacePath(workspace.id, `/agents/${encodeURIComponent(name)}/executions`));
  if (agent.error?.status === 404 && name !== '') return notYet;
  if (agent.error !== null) return <ErrorAlert error={agent.error} onRetry={agent.reload} />;
  if (agent.data === undefined) return name === '' ? notYet : <LoadingRows />;
  return (
    <Stack>
      <PageHeader title={`agent:${agent.data.name}`} description={agent.data.description} />
      <Card withBorder radius="md">
        <Code block>{JSON.stringify(agent.data.steps, null, 2)}</Code>
      </Card>
      <Card withBorder radius="md">
        <Text fw={600} mb="sm">
          Executions
        </Text>
        <Table.ScrollContainer minWidth={500}>
          <Table>
            <Table.Tbody>
              {listOf<Execution>(executions.data).map((execution) => (
                <Table.Tr key={execution.id}>
                  <Table.Td>
                    <Link to={`/executions/${execution.id}`}>{execution.id}</Link>
                  </Table.Td>
                  <Table.Td>{execution.status ?? ''}</Table.Td>
                  <Table.Td>{formatDateTime(execution.createdAt ?? null)}</Table.Td>
                  <Table.Td>{formatUsd(execution.totalCost)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
    </Stack>
  );
}

/** One execution, step by step. */
export function ExecutionPage() {
  const workspace = useWorkspace();
  const { id = '' } = useParams();
  const execution = useApi<Execution>(workspacePath(workspace.id, `/executions/${encodeURIComponent(id)}`));
  if (execution.error?.status === 404) return notYet;
  if (execution.error !== null) return <ErrorAlert error={execution.error} onRetry={execution.reload} />;
  if (execution.data === undefined) return <LoadingRows />;
  return (
    <Stack>
      <PageHeader title={`Execution ${execution.data.id}`} description={`${formatUsd(execution.data.totalCost)} · ${formatMs(execution.data.totalLatencyMs)}`} />
      {(execution.data.steps ?? []).map((step, index) => (
        <Card key={index} withBorder radius="md">
          <Code block>{JSON.stringify(step, null, 2)}</Code>
        </Card>
      ))}
    </Stack>
  );
}
