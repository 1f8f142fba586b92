import { AreaChart, BarChart, DonutChart, LineChart } from '@mantine/charts';
import { ActionIcon, Card, Group, SegmentedControl, SimpleGrid, Skeleton, Stack, Table, Tabs, Text, Title, Tooltip } from '@mantine/core';
import { IconChartHistogram, IconRefresh } from '@tabler/icons-react';
import { useMemo, useState, type ReactNode } from 'react';
import { workspacePath } from '../api/client';
import type { UsageBreakdownRow, UsageReport } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { filterQuery, NO_FILTERS, OpenRequestBox, RequestFilters, type RequestFilterValues } from '../components/request-filters';
import { formatCount, formatCountOf, formatEnergy, formatGrams, formatMs, formatUsd } from '../components/format';
import { EmptyPanel, ErrorAlert, PageHeader } from '../components/page-state';
import { RequestLogPager } from '../components/request-log-pager';
import { canWrite, useWorkspace } from '../session/session-context';

const RANGES = [
  { value: '24h', label: '24 h', hours: 24 },
  { value: '7d', label: '7 days', hours: 24 * 7 },
  { value: '30d', label: '30 days', hours: 24 * 30 },
  { value: '90d', label: '90 days', hours: 24 * 90 },
] as const;

const PALETTE = ['blue.6', 'teal.6', 'grape.6', 'orange.6', 'cyan.6', 'pink.6', 'lime.6', 'indigo.6'];

function Stat({ label, value, hint }: { readonly label: string; readonly value: ReactNode; readonly hint?: ReactNode }) {
  return (
    <Card withBorder radius="md" padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={700} size="xl" mt={4} data-testid={`stat-${label.toLowerCase().replace(/\W+/g, '-')}`}>
        {value}
      </Text>
      {hint === undefined ? null : (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Card>
  );
}

function ChartCard({ title, children }: { readonly title: string; readonly children: ReactNode }) {
  return (
    <Card withBorder radius="md" padding="lg">
      <Title order={3} size="h5" mb="md">
        {title}
      </Title>
      {children}
    </Card>
  );
}

function Breakdown({ rows, label }: { readonly rows: readonly UsageBreakdownRow[]; readonly label: string }) {
  if (rows.length === 0) {
    return (
      <Text c="dimmed" size="sm" py="md" ta="center">
        No requests in this range.
      </Text>
    );
  }
  const nameOf = (row: UsageBreakdownRow) => row.name ?? row.id ?? '(refused before routing)';
  const top = rows.slice(0, PALETTE.length);
  const withCost = top.filter((row) => row.costUsd > 0);
  return (
    <SimpleGrid cols={{ base: 1, md: 3 }} spacing="lg">
      {withCost.length === 0 ? null : (
        <Stack align="center" gap={4}>
          <DonutChart data={withCost.map((row, index) => ({ name: nameOf(row), value: row.costUsd, color: PALETTE[index] ?? 'gray.6' }))} valueFormatter={formatUsd} chartLabel="Spend" size={170} thickness={24} withTooltip tooltipDataSource="segment" />
        </Stack>
      )}
      <Table.ScrollContainer minWidth={420} style={{ gridColumn: withCost.length === 0 ? '1 / -1' : 'span 2' }}>
        <Table verticalSpacing={6}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{label}</Table.Th>
              <Table.Th ta="right">Requests</Table.Th>
              <Table.Th ta="right">Spend</Table.Th>
              <Table.Th ta="right">Tokens</Table.Th>
              <Table.Th ta="right">Carbon</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row, index) => (
              <Table.Tr key={`${row.id ?? 'none'}-${index}`}>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <span style={{ width: 10, height: 10, borderRadius: 5, flex: 'none', background: index < PALETTE.length ? `var(--mantine-color-${(PALETTE[index] ?? 'gray.6').replace('.', '-')})` : 'var(--mantine-color-gray-5)' }} />
                    <Text size="sm" {...(label === 'Model' ? { ff: 'monospace' } : {})} truncate>
                      {nameOf(row)}
                    </Text>
                    {row.prefix === undefined || row.prefix === null ? null : (
                      <Text size="xs" c="dimmed" ff="monospace">
                        {row.prefix}…
                      </Text>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td ta="right">{formatCount(row.requests)}</Table.Td>
                <Table.Td ta="right">{formatUsd(row.costUsd)}</Table.Td>
                <Table.Td ta="right">{formatCount(row.tokens)}</Table.Td>
                <Table.Td ta="right">{formatGrams(row.carbonGrams)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </SimpleGrid>
  );
}

/** Usage over a chosen range: totals, plots over time, breakdowns and the newest requests. */
export function UsagePage() {
  const workspace = useWorkspace();
  const [range, setRange] = useState<string>('24h');
  const [generation, setGeneration] = useState(0);
  const { from, to, bucket } = useMemo(() => {
    const hours = RANGES.find((item) => item.value === range)?.hours ?? 24;
    const end = Date.now();
    return { from: new Date(end - hours * 3_600_000).toISOString(), to: new Date(end).toISOString(), bucket: hours <= 48 ? 'hour' : 'day' };
    // generation: a refresh moves the window to now
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [range, generation]);
  const usage = useApi<UsageReport>(workspacePath(workspace.id, `/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&bucket=${bucket}`));
  const [filters, setFilters] = useState<RequestFilterValues>(NO_FILTERS);
  // Fixed per filter change and refresh: a relative time range must not move (and refetch) on every render.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const filtered = useMemo(() => filterQuery(filters, Date.now()), [filters, generation]);
  const requestsUrl = `${workspacePath(workspace.id, '/usage/requests?limit=50')}${filtered === '' ? '' : `&${filtered}`}&_=${generation}`;
  const routerOptions = listOf<{ id: string; name: string }>(useApi<unknown>(workspacePath(workspace.id, '/routers')).data);
  const keyOptions = listOf<{ id: string; name: string }>(useApi<unknown>(workspacePath(workspace.id, '/keys')).data);

  const series = useMemo(
    () =>
      (usage.data?.series ?? []).map((point) => {
        const date = new Date(point.t);
        return {
          time: bucket === 'hour' ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' }),
          requests: Math.max(0, point.requests - point.errors),
          errors: point.errors,
          costUsd: point.costUsd,
          tokens: point.tokens,
          carbonGrams: point.carbonGrams,
          p50: point.p50LatencyMs,
          p95: point.p95LatencyMs,
        };
      }),
    [usage.data, bucket],
  );
  const totals = usage.data?.totals;
  const totalTokens = totals === undefined ? 0 : (totals.promptTokens ?? 0) + (totals.completionTokens ?? 0);

  return (
    <Stack gap="lg">
      <PageHeader
        title="Usage"
        description="Requests, spend, tokens, carbon and latency across your routers, models and keys."
        action={
          <Group gap="xs">
            <SegmentedControl value={range} onChange={setRange} data={RANGES.map(({ value, label }) => ({ value, label }))} aria-label="Range" />
            <Tooltip label="Refresh">
              <ActionIcon variant="default" size="lg" onClick={() => setGeneration((value) => value + 1)} aria-label="Refresh usage" loading={usage.loading}>
                <IconRefresh size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        }
      />
      {usage.error !== null ? (
        <ErrorAlert error={usage.error} onRetry={usage.reload} title="Could not load usage" />
      ) : usage.data === undefined || totals === undefined ? (
        <Stack>
          <SimpleGrid cols={{ base: 2, md: 5 }}>
            {Array.from({ length: 5 }, (_, index) => (
              <Skeleton key={index} h={86} />
            ))}
          </SimpleGrid>
          <Skeleton h={260} />
        </Stack>
      ) : (
        <>
          <SimpleGrid cols={{ base: 2, md: 5 }} spacing="md">
            <Stat label="Requests" value={formatCount(totals.requests)} hint={formatCountOf(totals.errors ?? 0, 'error')} />
            <Stat label="Spend" value={formatUsd(totals.costUsd)} />
            <Stat label="Tokens" value={formatCount(totalTokens)} hint={`${formatCount(totals.promptTokens ?? 0)} in · ${formatCount(totals.completionTokens ?? 0)} out`} />
            <Stat label="Carbon" value={formatGrams(totals.carbonGrams)} hint={`CO₂e · ${formatEnergy(totals.energyWh)}`} />
            <Stat label="Latency p50" value={formatMs(totals.p50LatencyMs)} hint={`p95 ${formatMs(totals.p95LatencyMs)}`} />
          </SimpleGrid>
          {totals.requests === 0 ? (
            <Card withBorder radius="md">
              <EmptyPanel icon={<IconChartHistogram size={28} />} title="No requests in this range" description="Send a request with one of your keys, or try a router in the Playground: it appears here within seconds." />
            </Card>
          ) : (
            <>
              <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
                <ChartCard title="Requests">
                  <BarChart
                    h={220}
                    data={series}
                    dataKey="time"
                    type="stacked"
                    series={[
                      { name: 'requests', label: 'Answered', color: 'blue.6' },
                      { name: 'errors', label: 'Errors', color: 'red.6' },
                    ]}
                    gridAxis="y"
                    withLegend
                    legendProps={{ verticalAlign: 'bottom' }}
                    yAxisProps={{ allowDecimals: false }}
                  />
                </ChartCard>
                <ChartCard title="Spend">
                  <AreaChart h={220} data={series} dataKey="time" series={[{ name: 'costUsd', label: 'Spend', color: 'teal.6' }]} curveType="monotone" valueFormatter={formatUsd} gridAxis="y" withDots={false} />
                </ChartCard>
                <ChartCard title="Latency">
                  <LineChart
                    h={220}
                    data={series}
                    dataKey="time"
                    series={[
                      { name: 'p50', label: 'p50', color: 'indigo.6' },
                      { name: 'p95', label: 'p95', color: 'orange.6' },
                    ]}
                    curveType="monotone"
                    valueFormatter={(value) => formatMs(value)}
                    connectNulls
                    withLegend
                    legendProps={{ verticalAlign: 'bottom' }}
                    gridAxis="y"
                  />
                </ChartCard>
                <ChartCard title="Tokens and carbon">
                  {/* Two charts, not two axes of one: carbon follows tokens closely, so on one chart its line hid the tokens line. */}
                  <Stack gap={4}>
                    <Text size="xs" c="dimmed">
                      Tokens
                    </Text>
                    <AreaChart h={96} data={series} dataKey="time" series={[{ name: 'tokens', label: 'Tokens', color: 'grape.6' }]} curveType="monotone" gridAxis="y" withDots={false} withXAxis={false} valueFormatter={formatCount} />
                    <Text size="xs" c="dimmed" mt="xs">
                      Carbon (g CO₂e)
                    </Text>
                    <AreaChart h={112} data={series} dataKey="time" series={[{ name: 'carbonGrams', label: 'Carbon', color: 'lime.7' }]} curveType="monotone" gridAxis="y" withDots={false} valueFormatter={formatGrams} />
                  </Stack>
                </ChartCard>
              </SimpleGrid>
              <Card withBorder radius="md" padding="lg">
                <Tabs defaultValue="router">
                  <Tabs.List mb="md">
                    <Tabs.Tab value="router">By router</Tabs.Tab>
                    <Tabs.Tab value="model">By model</Tabs.Tab>
                    <Tabs.Tab value="key">By key</Tabs.Tab>
                  </Tabs.List>
                  <Tabs.Panel value="router">
                    <Breakdown rows={usage.data.byRouter} label="Router" />
                  </Tabs.Panel>
                  <Tabs.Panel value="model">
                    <Breakdown rows={usage.data.byModel} label="Model" />
                  </Tabs.Panel>
                  <Tabs.Panel value="key">
                    <Breakdown rows={usage.data.byKey} label="Key" />
                  </Tabs.Panel>
                </Tabs>
              </Card>
            </>
          )}
        </>
      )}
      <Card withBorder radius="md" padding="lg">
        <Group justify="space-between" align="end" mb="md" wrap="wrap">
          <Title order={3} size="h5">
            Recent requests
          </Title>
          <OpenRequestBox />
        </Group>
        <RequestFilters value={filters} onChange={setFilters} routers={routerOptions} keys={keyOptions} />
        <RequestLogPager url={requestsUrl} emptyText={filtered === '' ? 'No requests yet.' : 'No requests match these filters.'} canRate={canWrite(workspace)} />
      </Card>
    </Stack>
  );
}
