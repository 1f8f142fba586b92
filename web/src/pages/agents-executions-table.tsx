import { Badge, Table, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import type { Execution } from '../api/types';
import { formatDateTime, formatGrams, formatMs, formatUsd } from '../components/format';

export const STATUS_COLORS: Record<string, string> = { succeeded: 'teal', failed: 'red', running: 'blue', skipped: 'gray', cancelled: 'gray' };

export function StatusBadge({ status }: { readonly status: string }) {
  return (
    <Badge variant="light" color={STATUS_COLORS[status] ?? 'gray'}>
      {status}
    </Badge>
  );
}

/** An agent's executions, newest first; each row opens the execution. */
export function ExecutionsTable({ executions }: { readonly executions: readonly Execution[] }) {
  if (executions.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No runs yet. Run the agent above, or call it with model agent:&lt;name&gt;.
      </Text>
    );
  }
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table highlightOnHover fz="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Started</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Version</Table.Th>
            <Table.Th>Input</Table.Th>
            <Table.Th ta="right">Steps</Table.Th>
            <Table.Th ta="right">Cost</Table.Th>
            <Table.Th ta="right">Latency</Table.Th>
            <Table.Th ta="right">Carbon</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {executions.map((execution) => (
            <Table.Tr key={execution.id}>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Link to={`/executions/${encodeURIComponent(execution.id)}`}>{formatDateTime(execution.startedAt)}</Link>
              </Table.Td>
              <Table.Td>
                <StatusBadge status={execution.status} />
              </Table.Td>
              <Table.Td>v{execution.agentVersion}</Table.Td>
              <Table.Td maw={260}>
                <Text size="sm" truncate="end">
                  {execution.input}
                </Text>
              </Table.Td>
              <Table.Td ta="right">{execution.stepsExecuted}</Table.Td>
              <Table.Td ta="right">{formatUsd(execution.totalCostUsd)}</Table.Td>
              <Table.Td ta="right">{formatMs(execution.totalLatencyMs)}</Table.Td>
              <Table.Td ta="right">{formatGrams(execution.totalCarbonGrams)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
