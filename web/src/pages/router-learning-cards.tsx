import { Alert, Badge, Button, Card, FileButton, Group, SegmentedControl, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconFileUpload } from '@tabler/icons-react';
import { lazy, Suspense, useMemo, useState, type ReactNode } from 'react';
import { ApiError, workspacePath } from '../api/client';
import type { Calibration, Router, SavingsReport } from '../api/types';
import { useApi } from '../api/use-api';
import { formatCount, formatCountOf, formatDateTime, formatUsd } from '../components/format';
import { ErrorAlert } from '../components/page-state';
import { canWrite, useSession, useWorkspace } from '../session/session-context';

const SavingsChart = lazy(() => import('../components/savings-chart').then((module) => ({ default: module.SavingsChart })));

/** The server's cap on a calibration upload (src/http/dashboard/router-learning-routes.ts): checked here before reading the file. */
const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;

const EXAMPLE_LINE = '{"prompt": "…", "scores": {"provider:model": 1, "provider:other": 0}}';

function Figure({ label, value, hint, testId }: { readonly label: string; readonly value: ReactNode; readonly hint?: ReactNode; readonly testId: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={700} size="lg" data-testid={testId}>
        {value}
      </Text>
      {hint === undefined ? null : (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </div>
  );
}

/**
 * An `auto` router's calibration: upload labelled examples of the owner's own traffic (the `router calibrate`
 * format), and what the router is fitted on now (`settings.autoFit`, refitted in the background as feedback comes).
 */
export function CalibrationCard({ router, onFitted }: { readonly router: Router; readonly onFitted: () => void }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [uploading, setUploading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<(Calibration & { readonly file: string }) | null>(null);
  const fit = router.settings.autoFit;

  const upload = async (file: File | null) => {
    if (file === null) return;
    setError(null);
    setResult(null);
    if (file.size > MAX_UPLOAD_BYTES) {
      setError(`${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; an upload takes at most 8 MB of examples, far more than a fit needs.`);
      return;
    }
    setUploading(true);
    try {
      const text = await file.text();
      // The file's name, so a refusal names the line as `router calibrate` does ("labelled.jsonl line 3 …").
      const query = file.name === '' ? '' : `?name=${encodeURIComponent(file.name.slice(0, 200))}`;
      const calibration = await api.upload<Calibration>(workspacePath(workspace.id, `/routers/${router.id}/calibration${query}`), text, 'application/x-ndjson');
      setResult({ ...calibration, file: file.name });
      onFitted();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setUploading(false);
    }
  };

  return (
    <Card withBorder radius="md" padding="lg" data-testid="calibration-card">
      <Group justify="space-between" align="flex-start" mb="sm">
        <div>
          <Title order={3} size="h4">
            Calibration
          </Title>
          <Text size="sm" c="dimmed" maw={620}>
            Teach the router which model wins on which kind of your prompts: upload labelled examples as JSON lines, one <code>{EXAMPLE_LINE}</code> a line (the format of <code>modelport router calibrate</code>). They replace earlier uploads; thumbs on answers add to them.
          </Text>
        </div>
        {canWrite(workspace) ? (
          <FileButton onChange={(file) => void upload(file)} accept=".jsonl,.ndjson,.json,.txt,application/x-ndjson,application/jsonl,text/plain" inputProps={{ 'data-testid': 'calibration-file' } as Record<string, string>}>
            {(props) => (
              <Button {...props} variant="light" leftSection={<IconFileUpload size={16} />} loading={uploading}>
                Upload examples
              </Button>
            )}
          </FileButton>
        ) : null}
      </Group>
      {error === null ? null : (
        <Alert color="red" variant="light" mb="sm" role="alert" title="The upload was refused">
          {error}
        </Alert>
      )}
      {result === null ? null : (
        <Alert color="teal" variant="light" mb="sm" data-testid="calibration-result">
          Fitted from {formatCountOf(result.examples, 'example')} in {result.file}: {result.modelsFitted.join(', ')}.
          {result.ignored.length === 0 ? null : ` Ignored (not in this router): ${result.ignored.join(', ')}.`}
        </Alert>
      )}
      {fit === undefined ? (
        <Text size="sm" c="dimmed" data-testid="calibration-fit">
          Not fitted yet: the router predicts from what the catalog says of each model.
        </Text>
      ) : (
        <Stack gap="xs" data-testid="calibration-fit">
          <SimpleGrid cols={{ base: 2, sm: 3 }}>
            <Figure label="Labels" value={formatCount(fit.labels)} hint="examples and feedback" testId="fit-labels" />
            <Figure label="Models fitted" value={Object.keys(fit.models).length} testId="fit-models" />
            <Figure label="Last fit" value={formatDateTime(fit.fittedAt)} testId="fit-time" />
          </SimpleGrid>
          <Group gap={6}>
            {Object.entries(fit.models).map(([model, fitted]) => (
              <Badge key={model} variant="light" color="gray" tt="none" fw={500}>
                {model}: {formatCountOf(fitted.labels, 'label')}
              </Badge>
            ))}
          </Group>
        </Stack>
      )}
    </Card>
  );
}

const RANGES = [
  { value: '24h', label: '24 h', hours: 24 },
  { value: '7d', label: '7 days', hours: 24 * 7 },
  { value: '30d', label: '30 days', hours: 24 * 30 },
] as const;

/** What an `auto` router cost against always using its strongest model, over time, and its measured quality. */
export function SavingsCard({ router }: { readonly router: Router }) {
  const workspace = useWorkspace();
  const [range, setRange] = useState<string>('7d');
  const query = useMemo(() => {
    const hours = RANGES.find((item) => item.value === range)?.hours ?? 24 * 7;
    const to = Date.now();
    const from = new Date(to - hours * 3_600_000).toISOString();
    return `from=${encodeURIComponent(from)}&to=${encodeURIComponent(new Date(to).toISOString())}&bucket=${hours <= 48 ? 'hour' : 'day'}`;
  }, [range]);
  const savings = useApi<SavingsReport>(workspacePath(workspace.id, `/routers/${router.id}/savings?${query}`));
  const totals = savings.data?.totals;
  const share = totals === undefined || totals.counterfactualCostUsd <= 0 ? null : totals.savedUsd / totals.counterfactualCostUsd;

  return (
    <Card withBorder radius="md" padding="lg" data-testid="savings-card">
      <Group justify="space-between" mb="md">
        <div>
          <Title order={3} size="h4">
            Savings
          </Title>
          <Text size="sm" c="dimmed">
            Spend against always using the router&apos;s strongest model for the same tokens, at catalog prices.
          </Text>
        </div>
        <SegmentedControl size="xs" value={range} onChange={setRange} aria-label="Savings range" data={RANGES.map(({ value, label }) => ({ value, label }))} />
      </Group>
      {savings.error !== null ? (
        <ErrorAlert error={savings.error} onRetry={savings.reload} title="Could not load savings" />
      ) : savings.data === undefined || totals === undefined ? (
        <Skeleton h={260} />
      ) : (
        <Stack>
          <SimpleGrid cols={{ base: 2, md: 4 }}>
            <Figure label="Spend" value={formatUsd(totals.costUsd)} hint={formatCountOf(totals.requests, 'request')} testId="savings-cost" />
            <Figure label="Always strongest" value={formatUsd(totals.counterfactualCostUsd)} testId="savings-counterfactual" />
            <Figure label="Saved" value={formatUsd(totals.savedUsd)} hint={share === null ? undefined : `${Math.round(share * 100)} % less`} testId="savings-saved" />
            <Figure
              label="Measured quality"
              value={totals.feedback.meanScore === null ? '—' : `${Math.round(totals.feedback.meanScore * 100)} %`}
              hint={totals.feedback.count === 0 ? 'no feedback yet' : `mean score of ${formatCountOf(totals.feedback.count, 'rating')}`}
              testId="savings-quality"
            />
          </SimpleGrid>
          {totals.requests === 0 ? (
            <Text c="dimmed" size="sm" ta="center" py="md">
              No requests in this range.
            </Text>
          ) : (
            <Suspense fallback={<Skeleton h={220} />}>
              <SavingsChart report={savings.data} />
            </Suspense>
          )}
        </Stack>
      )}
    </Card>
  );
}
