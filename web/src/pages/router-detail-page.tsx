import { Alert, Badge, Button, Card, Group, Modal, SegmentedControl, SimpleGrid, Skeleton, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconEdit, IconMessageChatbot, IconTrash } from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError, workspacePath } from '../api/client';
import type { CatalogModel, Router, Strategy, TrafficReport } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { CopyBlock, CopyValue } from '../components/copy-value';
import { formatCount, formatCountOf, formatPrice, formatTokens, formatUsd } from '../components/format';
import { EmptyPanel, ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { RequestTable } from '../components/request-table';
import { canWrite, useSession, useWorkspace } from '../session/session-context';
import { routerSnippets } from './snippets';

const TrafficChart = lazy(() => import('../components/traffic-chart').then((module) => ({ default: module.TrafficChart })));
// Only auto routers show them: loaded when one is opened.
const SavingsCard = lazy(() => import('./router-learning-cards').then((module) => ({ default: module.SavingsCard })));
const CalibrationCard = lazy(() => import('./router-learning-cards').then((module) => ({ default: module.CalibrationCard })));

function DeleteRouterButton({ router }: { readonly router: Router }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const navigate = useNavigate();
  const [opened, { open, close }] = useDisclosure(false);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const remove = async () => {
    setDeleting(true);
    try {
      await api.send('DELETE', workspacePath(workspace.id, `/routers/${router.id}`));
      notifications.show({ color: 'teal', title: 'Router deleted', message: router.name });
      navigate('/routers');
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
      setDeleting(false);
    }
  };
  return (
    <>
      <Button variant="light" color="red" leftSection={<IconTrash size={16} />} onClick={open}>
        Delete
      </Button>
      <Modal opened={opened} onClose={close} title={`Delete ${router.name}?`} centered>
        <Stack>
          <Text size="sm">Requests naming this router will be refused with 404 from now on. Its past usage stays in your reports.</Text>
          {error === null ? null : (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-autofocus>
              Cancel
            </Button>
            <Button color="red" loading={deleting} onClick={() => void remove()}>
              Delete router
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function Traffic({ router }: { readonly router: Router }) {
  const workspace = useWorkspace();
  const [range, setRange] = useState('24h');
  const traffic = useApi<TrafficReport>(workspacePath(workspace.id, `/routers/${router.id}/traffic?range=${range}`));
  const total = traffic.data?.hourly.reduce((sum, point) => sum + point.requests, 0) ?? 0;
  const cost = traffic.data?.hourly.reduce((sum, point) => sum + point.costUsd, 0) ?? 0;
  return (
    <Card withBorder radius="md" padding="lg">
      <Group justify="space-between" mb="md">
        <div>
          <Title order={3} size="h4">
            Recent traffic
          </Title>
          {traffic.data === undefined ? null : (
            <Text size="sm" c="dimmed">
              {formatCountOf(total, 'request')} · {formatUsd(cost)}
            </Text>
          )}
        </div>
        <SegmentedControl
          size="xs"
          value={range}
          onChange={setRange}
          aria-label="Traffic range"
          data={[
            { value: '1h', label: '1 h' },
            { value: '24h', label: '24 h' },
            { value: '7d', label: '7 days' },
          ]}
        />
      </Group>
      {traffic.error !== null ? (
        <ErrorAlert error={traffic.error} onRetry={traffic.reload} title="Could not load traffic" />
      ) : traffic.data === undefined ? (
        <Skeleton h={220} />
      ) : total === 0 && traffic.data.recent.length === 0 ? (
        <Text c="dimmed" size="sm" ta="center" py="xl">
          {router.kind === 'embedding' ? 'No requests yet. Send one with a snippet above.' : 'No requests yet. Send one with a snippet above, or try the router in the Playground.'}
        </Text>
      ) : (
        <Stack>
          <Suspense fallback={<Skeleton h={220} />}>
            <TrafficChart hourly={traffic.data.hourly} />
          </Suspense>
          <RequestTable requests={traffic.data.recent} showRouter={false} canRate={canWrite(workspace)} />
        </Stack>
      )}
    </Card>
  );
}

/** "$25 per month · 600 requests/min · 100,000 tokens/min", across every key of the router. */
function describeLimits(router: Router): string {
  const parts = [
    ...(router.budget === null ? [] : [`${formatUsd(router.budget.usd)} per ${router.budget.period} (UTC)`]),
    ...(router.rpmLimit === null ? [] : [`${formatCount(router.rpmLimit)} requests/min`]),
    ...(router.tpmLimit === null ? [] : [`${formatCount(router.tpmLimit)} tokens/min`]),
  ];
  return parts.length === 0 ? 'None: only each key\'s own limits apply.' : parts.join(' · ');
}

/** A router: its ID to copy, its models, snippets that call it and its recent traffic. */
export function RouterDetailPage() {
  const workspace = useWorkspace();
  const { id = '' } = useParams();
  const router = useApi<Router>(workspacePath(workspace.id, `/routers/${encodeURIComponent(id)}`));
  const catalog = useApi<unknown>(`/catalog?workspace=${encodeURIComponent(workspace.id)}`);
  const strategies = useApi<unknown>('/strategies');

  if (router.error !== null) {
    if (router.error.status === 404) {
      return (
        <EmptyPanel
          icon={<IconEdit size={28} />}
          title="Router not found"
          description="It was deleted, or it belongs to another workspace."
          action={
            <Button component={Link} to="/routers">
              All routers
            </Button>
          }
        />
      );
    }
    return <ErrorAlert error={router.error} onRetry={router.reload} title="Could not load the router" />;
  }
  if (router.data === undefined) return <LoadingRows rows={5} height={80} />;
  const data = router.data;
  const strategy = listOf<Strategy>(strategies.data).find((item) => item.id === data.strategy);
  const models = listOf<CatalogModel>(catalog.data);
  const baseUrl = `${window.location.origin}/api/router/v1`;
  const embedding = data.kind === 'embedding';
  const snippets = routerSnippets(baseUrl, data.id, data.kind);

  return (
    <Stack gap="lg">
      <PageHeader
        title={data.name}
        description={strategy === undefined ? data.strategy : `${strategy.label}: ${strategy.description}`}
        action={
          <Group gap="xs">
            {embedding ? null : (
              <Button variant="default" component={Link} to={`/playground?router=${data.id}`} leftSection={<IconMessageChatbot size={16} />}>
                Try it
              </Button>
            )}
            {canWrite(workspace) ? (
              <>
                <Button variant="default" component={Link} to={`/routers/${data.id}/edit`} leftSection={<IconEdit size={16} />}>
                  Edit
                </Button>
                <DeleteRouterButton router={data} />
              </>
            ) : null}
          </Group>
        }
      />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Card withBorder radius="md" padding="lg">
          <Text size="sm" fw={600} mb={4}>
            Router ID
          </Text>
          <Text size="xs" c="dimmed" mb="sm">
            Send it as the <code>model</code> of any OpenAI-compatible {embedding ? 'embeddings' : 'chat'} request, with a key from Settings → API Keys.
          </Text>
          <CopyValue value={data.id} label="Copy router ID" testId="router-id" />
          <Text size="sm" fw={600} mt="md" mb={4}>
            Base URL
          </Text>
          <CopyValue value={baseUrl} label="Copy base URL" />
          <Text size="sm" fw={600} mt="md" mb={4}>
            Budget and rate limits
          </Text>
          <Text size="sm" c="dimmed" data-testid="router-limits">
            {describeLimits(data)}
          </Text>
        </Card>
        <Card withBorder radius="md" padding="lg">
          <Group justify="space-between" mb="xs">
            <Text size="sm" fw={600}>
              Models
            </Text>
            <Group gap={4}>
              <Badge variant="light" color={embedding ? 'teal' : 'blue'} data-testid="router-kind">
                {embedding ? 'Embeddings' : 'Chat'}
              </Badge>
              <Badge variant="light">{strategy?.label ?? data.strategy}</Badge>
            </Group>
          </Group>
          <Table.ScrollContainer minWidth={380}>
            <Table verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Model</Table.Th>
                  <Table.Th ta="right">{embedding ? 'Input per 1M' : 'In / Out per 1M'}</Table.Th>
                  <Table.Th ta="right">{embedding ? 'Dimensions' : 'Context'}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.models.map((modelId) => {
                  const model = models.find((item) => item.id === modelId);
                  return (
                    <Table.Tr key={modelId}>
                      <Table.Td>
                        <Text size="sm" ff="monospace">
                          {modelId}
                        </Text>
                      </Table.Td>
                      <Table.Td ta="right">{model === undefined ? '—' : embedding ? formatPrice(model.inputPerMTok) : `${formatPrice(model.inputPerMTok)} / ${formatPrice(model.outputPerMTok)}`}</Table.Td>
                      <Table.Td ta="right">{embedding ? (model?.embedding?.dimensions ?? '—') : formatTokens(model?.contextWindow)}</Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      </SimpleGrid>
      <Card withBorder radius="md" padding="lg">
        <Title order={3} size="h4" mb={4}>
          Call this router
        </Title>
        <Text size="sm" c="dimmed" mb="md">
          Set <code>MODELPORT_API_KEY</code> to a key from Settings → API Keys.
        </Text>
        <Tabs defaultValue="curl" keepMounted={false}>
          <Tabs.List mb="sm">
            {snippets.map((snippet) => (
              <Tabs.Tab key={snippet.id} value={snippet.id}>
                {snippet.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {snippets.map((snippet) => (
            <Tabs.Panel key={snippet.id} value={snippet.id}>
              <CopyBlock code={snippet.code} label={`Copy ${snippet.label} snippet`} />
            </Tabs.Panel>
          ))}
        </Tabs>
      </Card>
      {data.strategy === 'auto' ? (
        <Suspense fallback={<Skeleton h={260} />}>
          <SavingsCard router={data} />
          <CalibrationCard router={data} onFitted={router.reload} />
        </Suspense>
      ) : null}
      <Traffic router={data} />
    </Stack>
  );
}
