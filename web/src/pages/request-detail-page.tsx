import { Alert, Anchor, Badge, Card, Code, Group, ScrollArea, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { workspacePath } from '../api/client';
import type { RequestAttempt, RequestLogEntry } from '../api/types';
import { useApi } from '../api/use-api';
import { formatDateTime, formatEnergy, formatGrams, formatMs, formatUsd } from '../components/format';
import { ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { useWorkspace } from '../session/session-context';

function Figure({ label, value }: { readonly label: string; readonly value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={600}>{value}</Text>
    </div>
  );
}

const outcomeColor = (attempt: RequestAttempt) => (attempt.outcome === 'ok' ? 'teal' : attempt.outcome === 'skipped' ? 'gray' : 'red');

function AttemptsTable({ attempts }: { readonly attempts: readonly RequestAttempt[] }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped data-testid="attempts-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>#</Table.Th>
            <Table.Th>Model</Table.Th>
            <Table.Th>Outcome</Table.Th>
            <Table.Th>Error</Table.Th>
            <Table.Th ta="right">Latency</Table.Th>
            <Table.Th ta="right">Tokens</Table.Th>
            <Table.Th ta="right">Cost</Table.Th>
            <Table.Th ta="right">Carbon</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {attempts.map((attempt, index) => (
            <Table.Tr key={index} data-testid="attempt-row">
              <Table.Td>{index + 1}</Table.Td>
              <Table.Td ff="monospace">{attempt.model}</Table.Td>
              <Table.Td>
                <Badge variant="light" color={outcomeColor(attempt)}>
                  {attempt.outcome}
                  {attempt.status === undefined ? '' : ` ${attempt.status}`}
                </Badge>
              </Table.Td>
              <Table.Td>{attempt.reason ?? '—'}</Table.Td>
              <Table.Td ta="right">{formatMs(attempt.latencyMs)}</Table.Td>
              <Table.Td ta="right">{attempt.promptTokens + attempt.completionTokens}</Table.Td>
              <Table.Td ta="right">{formatUsd(attempt.cost)}</Table.Td>
              <Table.Td ta="right">{formatGrams(attempt.carbonGrams)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The routing decision: the strategy, the ranked candidates with their reasons, and the rest of `_meta.routing`. */
function RoutingCard({ routing }: { readonly routing: Record<string, unknown> }) {
  const { candidates, ...rest } = routing as { candidates?: readonly Record<string, unknown>[] };
  return (
    <Card withBorder radius="md" padding="lg">
      <Title order={4} mb="sm">
        Routing decision
      </Title>
      {candidates !== undefined && candidates.length > 0 ? (
        <Stack gap={4} mb="sm" data-testid="routing-candidates">
          {candidates.map((candidate, index) => (
            <Group key={index} gap="xs" wrap="nowrap">
              <Badge variant="outline">{index + 1}</Badge>
              <Text size="sm" ff="monospace">
                {String(candidate.model ?? candidate.id ?? '?')}
              </Text>
              <Text size="xs" c="dimmed" lineClamp={1}>
                {Object.entries(candidate)
                  .filter(([key]) => key !== 'model' && key !== 'id')
                  .map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
                  .join(' · ')}
              </Text>
            </Group>
          ))}
        </Stack>
      ) : null}
      <Code block>{JSON.stringify(rest, null, 2)}</Code>
    </Card>
  );
}

function BodyBlock({ title, text }: { readonly title: string; readonly text: string | null }) {
  return (
    <div>
      <Text fw={600} mb={4}>
        {title}
      </Text>
      {text === null ? (
        <Text c="dimmed" size="sm">
          Not kept.
        </Text>
      ) : (
        <ScrollArea.Autosize mah={360}>
          <Code block>{prettyJson(text)}</Code>
        </ScrollArea.Autosize>
      )}
    </div>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** How often, and how long apart, a request not found yet is asked for again. */
const RECORD_WAIT_TRIES = 8;
const RECORD_WAIT_MS = 750;

/** One request of the log: its figures, how it was routed, every attempt, and its bodies when the router kept them. */
export function RequestDetailPage() {
  const workspace = useWorkspace();
  const { id = '' } = useParams();
  const entry = useApi<RequestLogEntry>(workspacePath(workspace.id, `/usage/requests/${encodeURIComponent(id)}`));
  // A request answered a moment ago (a `_meta.requestId` pasted at once) is in the log once the gateway has written
  // its usage record, within a few seconds: a 404 is asked again a few times before it is shown.
  const [waited, setWaited] = useState(0);
  const notYetWritten = entry.error?.status === 404 && waited < RECORD_WAIT_TRIES;
  const reload = entry.reload;
  useEffect(() => {
    if (!notYetWritten) return;
    const timer = setTimeout(() => {
      setWaited((tries) => tries + 1);
      reload();
    }, RECORD_WAIT_MS);
    return () => clearTimeout(timer);
  }, [notYetWritten, waited, reload]);
  const back = (
    <Anchor component={Link} to="/usage">
      Back to usage
    </Anchor>
  );
  if (entry.error !== null && !notYetWritten) {
    return (
      <Stack>
        <PageHeader title="Request" description={<Code>{id}</Code>} action={back} />
        <ErrorAlert error={entry.error} onRetry={entry.reload} title="Could not load this request" />
      </Stack>
    );
  }
  if (entry.data === undefined || entry.error !== null) return <LoadingRows rows={6} />;
  const { request, detail, bodies, bodiesExpired } = entry.data;
  return (
    <Stack gap="lg" data-testid="request-detail">
      <PageHeader title="Request" description={<Code>{request.id}</Code>} action={back} />
      <Card withBorder radius="md" padding="lg">
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <Figure label="Time" value={formatDateTime(request.time)} />
          <Figure label="Status" value={`${request.status}${request.errorCode === null ? '' : ` ${request.errorCode}`}`} />
          <Figure label="Router" value={request.routerName ?? request.routerId ?? '—'} />
          <Figure label="Model used" value={request.model ?? '—'} />
          <Figure label="Key" value={request.keyName ?? request.keyId ?? '—'} />
          <Figure label="Tokens" value={`${request.promptTokens} in + ${request.completionTokens} out`} />
          <Figure label="Cost" value={formatUsd(request.costUsd)} />
          <Figure label="Latency" value={formatMs(request.latencyMs)} />
          <Figure label="Carbon" value={formatGrams(request.carbonGrams)} />
          <Figure label="Energy" value={formatEnergy(detail?.carbon?.energyWh ?? request.energyWh)} />
          <Figure label="Attempts" value={String(request.attempts)} />
          <Figure label="Streamed" value={request.streamed ? 'yes' : 'no'} />
        </SimpleGrid>
      </Card>
      {detail === null ? (
        <Alert color="gray" title="No routing detail">
          This request failed before it was routed (no router, an invalid request, a limit or a budget), or was recorded before the request log existed.
        </Alert>
      ) : (
        <>
          <Card withBorder radius="md" padding="lg">
            <Title order={4} mb="sm">
              Attempts
            </Title>
            <AttemptsTable attempts={detail.attempts} />
          </Card>
          <RoutingCard routing={detail.routing} />
          {detail.carbon !== null ? (
            <Card withBorder radius="md" padding="lg">
              <Title order={4} mb="sm">
                Carbon and prices
              </Title>
              <SimpleGrid cols={{ base: 1, md: 2 }}>
                <Code block>{JSON.stringify(detail.carbon, null, 2)}</Code>
                <Code block>{JSON.stringify(detail.prices, null, 2)}</Code>
              </SimpleGrid>
            </Card>
          ) : null}
        </>
      )}
      <Card withBorder radius="md" padding="lg">
        <Title order={4} mb="sm">
          Bodies
        </Title>
        {bodies !== null ? (
          <Stack data-testid="request-bodies">
            {bodies.truncated ? <Badge color="orange">cut at the router's size limit</Badge> : null}
            <BodyBlock title="Request" text={bodies.request} />
            <BodyBlock title="Response" text={bodies.response} />
          </Stack>
        ) : (
          <Text c="dimmed" size="sm">
            {bodiesExpired ? "Deleted after the router's retention period." : "Not kept: body logging is off for this router (turn it on in the router's settings)."}
          </Text>
        )}
      </Card>
    </Stack>
  );
}
