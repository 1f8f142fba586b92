import { Badge, Group, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import type { AgentMeta } from '../api/types';
import { formatGrams, formatMs, formatUsd } from '../components/format';

/** A run's agent `_meta`: totals, then each step with its model, tokens, cost and latency. */
export function AgentMetaView({ meta }: { readonly meta: AgentMeta }) {
  return (
    <Stack gap="xs" data-testid="agent-meta">
      <Group gap={6}>
        <Badge variant="light" tt="none" fw={500}>
          Steps: {meta.steps_executed}
        </Badge>
        <Badge variant="light" color="gray" tt="none" fw={500}>
          Total cost: {formatUsd(meta.total_cost)}
        </Badge>
        <Badge variant="light" color="gray" tt="none" fw={500}>
          Total latency: {formatMs(meta.total_latency)}
        </Badge>
        <Badge variant="light" color="green" tt="none" fw={500}>
          Carbon: {formatGrams(meta.total_carbon)}
        </Badge>
        <Badge variant="outline" color="gray" tt="none" fw={500}>
          Version {meta.agent_version}
        </Badge>
      </Group>
      <Table.ScrollContainer minWidth={560}>
        <Table striped withTableBorder fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Step</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Model</Table.Th>
              <Table.Th ta="right">Tokens</Table.Th>
              <Table.Th ta="right">Cost</Table.Th>
              <Table.Th ta="right">Latency</Table.Th>
              <Table.Th ta="right">Carbon</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {meta.steps.map((step) => (
              <Table.Tr key={step.name}>
                <Table.Td ff="monospace">{step.name}</Table.Td>
                <Table.Td>{step.status}</Table.Td>
                <Table.Td ff="monospace">{step.model ?? '—'}</Table.Td>
                <Table.Td ta="right">
                  {step.prompt_tokens} → {step.completion_tokens}
                </Table.Td>
                <Table.Td ta="right">{formatUsd(step.cost)}</Table.Td>
                <Table.Td ta="right">{formatMs(step.latency)}</Table.Td>
                <Table.Td ta="right">{formatGrams(step.carbon)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="sm">
        <Link to={`/executions/${encodeURIComponent(meta.execution_id)}`}>Open execution {meta.execution_id}</Link>
      </Text>
    </Stack>
  );
}
