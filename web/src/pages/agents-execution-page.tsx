import { Alert, Badge, Code, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router-dom';
import { workspacePath } from '../api/client';
import type { ExecutionStep, ExecutionWithSteps } from '../api/types';
import { useApi } from '../api/use-api';
import { formatDateTime, formatGrams, formatMs, formatUsd } from '../components/format';
import { ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { useWorkspace } from '../session/session-context';
import { StatusBadge } from './agents-executions-table';

function Figure({ label, value }: { readonly label: string; readonly value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" fw={500} ff="monospace">
        {value}
      </Text>
    </div>
  );
}

function StepCard({ step }: { readonly step: ExecutionStep }) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={`Step ${step.name}`}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Badge variant="light" radius="sm">
              {step.position + 1}
            </Badge>
            <Text fw={600} ff="monospace">
              {step.name}
            </Text>
            <StatusBadge status={step.status} />
          </Group>
          <Text size="xs" c="dimmed">
            {step.routerId === null ? 'direct model call' : `router ${step.routerId}`}
            {` · finished ${formatDateTime(step.finishedAt)}`}
          </Text>
        </Group>
        <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }}>
          <Figure label="Model" value={step.model ?? '—'} />
          <Figure label="Tokens in / out" value={`${step.promptTokens} / ${step.completionTokens}`} />
          <Figure label="Cost" value={formatUsd(step.costUsd)} />
          <Figure label="Latency" value={formatMs(step.latencyMs)} />
          <Figure label="Carbon" value={formatGrams(step.carbonGrams)} />
          <Figure label="Attempts" value={String(step.attempts)} />
        </SimpleGrid>
        {step.error === null ? null : (
          <Alert color="red" variant="light" title={step.error.code}>
            {step.error.message}
          </Alert>
        )}
        {step.output === null ? null : (
          <div>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600} mb={4}>
              Output
            </Text>
            <Code block style={{ whiteSpace: 'pre-wrap', maxHeight: 320, overflow: 'auto' }}>
              {step.output}
            </Code>
          </div>
        )}
      </Stack>
    </Paper>
  );
}

/** One execution of an agent, step by step. */
export function ExecutionPage() {
  const workspace = useWorkspace();
  const { id = '' } = useParams();
  const execution = useApi<ExecutionWithSteps>(workspacePath(workspace.id, `/executions/${encodeURIComponent(id)}`));
  if (execution.error !== null) return <ErrorAlert error={execution.error} onRetry={execution.reload} title="Could not load the execution" />;
  if (execution.data === undefined) return <LoadingRows rows={6} />;
  const run = execution.data;
  return (
    <Stack gap="lg">
      <PageHeader
        title={`Execution ${run.id}`}
        description={
          <>
            <Link to={`/agents/${encodeURIComponent(run.agentName)}`}>agent:{run.agentName}</Link> version {run.agentVersion} · {formatDateTime(run.startedAt)} ·{' '}
            {run.keyId === 'dashboard' ? 'dashboard run' : `key ${run.keyId ?? '—'}`}
            {run.streamed ? ' · streamed' : ''}
          </>
        }
        action={<StatusBadge status={run.status} />}
      />
      <Paper withBorder p="lg" radius="md">
        <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }}>
          <Figure label="Steps" value={String(run.stepsExecuted)} />
          <Figure label="Tokens in / out" value={`${run.promptTokens} / ${run.completionTokens}`} />
          <Figure label="Total cost" value={formatUsd(run.totalCostUsd)} />
          <Figure label="Total latency" value={formatMs(run.totalLatencyMs)} />
          <Figure label="Carbon" value={formatGrams(run.totalCarbonGrams)} />
          <Figure label="Models" value={run.modelsUsed.join(', ') || '—'} />
        </SimpleGrid>
      </Paper>
      {run.error === null ? null : (
        <Alert color="red" variant="light" title={run.error.code} role="alert">
          {run.error.message}
        </Alert>
      )}
      <Paper withBorder p="lg" radius="md">
        <Stack gap="xs">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            Input
          </Text>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {run.input}
          </Text>
          {run.output === null ? null : (
            <>
              <Text size="xs" c="dimmed" tt="uppercase" fw={600} mt="sm">
                Answer
              </Text>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {run.output}
              </Text>
            </>
          )}
        </Stack>
      </Paper>
      <Title order={4}>Steps</Title>
      {run.steps.map((step) => (
        <StepCard key={step.name} step={step} />
      ))}
    </Stack>
  );
}
