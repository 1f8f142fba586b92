import { Accordion, Badge, Button, Code, Group, Modal, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError, workspacePath } from '../api/client';
import type { AgentDefinition, AgentWithVersions, Execution, Router } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { formatDateTime } from '../components/format';
import { ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { canWrite, useSession, useWorkspace } from '../session/session-context';
import { ExecutionsTable } from './agents-executions-table';
import { AgentRunPanel } from './agents-run-panel';

/** The steps of a definition, one row each. */
function StepsTable({ definition, routerNames }: { readonly definition: AgentDefinition; readonly routerNames: ReadonlyMap<string, string> }) {
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table fz="sm" verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>#</Table.Th>
            <Table.Th>Step</Table.Th>
            <Table.Th>Calls</Table.Th>
            <Table.Th>Needs</Table.Th>
            <Table.Th>Prompt</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {definition.steps.map((step, index) => (
            <Table.Tr key={step.name}>
              <Table.Td>{index + 1}</Table.Td>
              <Table.Td ff="monospace">
                {step.name}
                {step.response_format !== undefined && step.response_format.type !== 'text' ? (
                  <Badge ml={6} size="xs" variant="light">
                    JSON
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td>
                {step.router === undefined ? (
                  <Text span size="sm" ff="monospace">
                    {step.model}
                  </Text>
                ) : (
                  <Link to={`/routers/${encodeURIComponent(step.router)}`}>{routerNames.get(step.router) ?? step.router}</Link>
                )}
              </Table.Td>
              <Table.Td>{(step.needs ?? []).join(', ') || '—'}</Table.Td>
              <Table.Td maw={360}>
                <Text size="sm" ff="monospace" lineClamp={2}>
                  {step.prompt}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** One agent: its definition and versions, a run panel and its executions. */
export function AgentDetailPage() {
  const workspace = useWorkspace();
  const { api } = useSession();
  const navigate = useNavigate();
  const { name = '' } = useParams();
  const path = workspacePath(workspace.id, `/agents/${encodeURIComponent(name)}`);
  const agent = useApi<AgentWithVersions>(path);
  const executions = useApi<unknown>(`${path}/executions?limit=20`);
  const routers = useApi<unknown>(workspacePath(workspace.id, '/routers'));
  const routerNames = new Map(listOf<Router>(routers.data).map((router) => [router.id, router.name]));
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  if (agent.error !== null) return <ErrorAlert error={agent.error} onRetry={agent.reload} title="Could not load the agent" />;
  if (agent.data === undefined) return <LoadingRows rows={6} />;
  const current = agent.data;
  const versions = [...current.versions].sort((a, b) => b.version - a.version);

  const remove = () => {
    setDeleting(true);
    api.send('DELETE', path).then(
      () => {
        notifications.show({ color: 'teal', title: 'Agent deleted', message: current.name });
        navigate('/agents');
      },
      (error: unknown) => {
        setDeleting(false);
        setConfirming(false);
        notifications.show({ color: 'red', title: 'Could not delete the agent', message: error instanceof ApiError ? error.message : String(error) });
      },
    );
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title={<Text span inherit ff="monospace">{current.model}</Text>}
        description={current.description === '' ? `Version ${current.version}, saved ${formatDateTime(current.updatedAt)}` : current.description}
        action={
          canWrite(workspace) ? (
            <Group gap="xs">
              <Button variant="default" leftSection={<IconPencil size={16} />} component={Link} to={`/agents/${encodeURIComponent(current.name)}/edit`}>
                Edit
              </Button>
              <Button variant="light" color="red" leftSection={<IconTrash size={16} />} onClick={() => setConfirming(true)}>
                Delete
              </Button>
            </Group>
          ) : undefined
        }
      />
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={`Delete agent:${current.name}?`}>
        <Stack>
          <Text size="sm">Requests naming it get 404 agent_not_found afterwards. Its past usage stays in the usage pages.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red" loading={deleting} onClick={remove}>
              Delete agent
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Paper withBorder p="lg" radius="md" component="section" aria-label="Definition">
        <Group justify="space-between" mb="sm">
          <Title order={4}>Definition</Title>
          <Badge variant="outline" color="gray">
            version {current.version}
          </Badge>
        </Group>
        <StepsTable definition={current.definition} routerNames={routerNames} />
        <Accordion variant="default" mt="sm">
          <Accordion.Item value="versions">
            <Accordion.Control>Versions ({versions.length})</Accordion.Control>
            <Accordion.Panel>
              <Accordion variant="separated">
                {versions.map((version) => (
                  <Accordion.Item key={version.version} value={String(version.version)}>
                    <Accordion.Control>
                      Version {version.version} · {formatDateTime(version.createdAt)}
                      {version.version === current.version ? ' (current)' : ''}
                    </Accordion.Control>
                    <Accordion.Panel>
                      <Code block>{JSON.stringify(version.definition, null, 2)}</Code>
                    </Accordion.Panel>
                  </Accordion.Item>
                ))}
              </Accordion>
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      </Paper>
      <AgentRunPanel name={current.name} onFinished={executions.reload} />
      <Paper withBorder p="lg" radius="md" component="section" aria-label="Executions">
        <Title order={4} mb="sm">
          Executions
        </Title>
        {executions.error !== null ? <ErrorAlert error={executions.error} onRetry={executions.reload} /> : executions.data === undefined ? <LoadingRows rows={3} /> : <ExecutionsTable executions={listOf<Execution>(executions.data)} />}
      </Paper>
    </Stack>
  );
}
