import { Badge, Table, Text, Tooltip } from '@mantine/core';
import type { UsageRequest } from '../api/types';
import { formatDateTime, formatGrams, formatMs, formatRelative, formatUsd } from './format';

export interface RequestTableProps {
  readonly requests: readonly UsageRequest[];
  /** Hide the router column (on a router's own page). */
  readonly showRouter?: boolean;
}

/** Request records with the figures of their `_meta`: model used, cost, latency, carbon, attempts. */
export function RequestTable({ requests, showRouter = true }: RequestTableProps) {
  return (
    <Table.ScrollContainer minWidth={showRouter ? 880 : 760}>
      <Table striped highlightOnHover verticalSpacing="xs" data-testid="request-table" style={{ whiteSpace: 'nowrap' }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>Status</Table.Th>
            {showRouter ? <Table.Th>Router</Table.Th> : null}
            <Table.Th>Model used</Table.Th>
            <Table.Th>Key</Table.Th>
            <Table.Th ta="right">Tokens</Table.Th>
            <Table.Th ta="right">Cost</Table.Th>
            <Table.Th ta="right">Latency</Table.Th>
            <Table.Th ta="right">Carbon</Table.Th>
            <Table.Th ta="right">Attempts</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {requests.map((request) => (
            <Table.Tr key={request.id} data-testid="request-row">
              <Table.Td>
                <Tooltip label={formatDateTime(request.time)}>
                  <Text size="sm" span>
                    {formatRelative(request.time)}
                  </Text>
                </Tooltip>
              </Table.Td>
              <Table.Td>
                <Tooltip label={request.errorCode ?? (request.streamed ? 'streamed' : 'ok')}>
                  <Badge color={request.status < 400 ? 'teal' : request.status === 429 ? 'orange' : 'red'} variant="light">
                    {request.status}
                  </Badge>
                </Tooltip>
              </Table.Td>
              {showRouter ? <Table.Td>{request.routerName ?? request.routerId ?? '—'}</Table.Td> : null}
              <Table.Td>
                <Text size="sm" ff="monospace" span>
                  {request.model ?? '—'}
                </Text>
                {request.kind === 'embedding' ? (
                  <Badge ml={6} size="xs" variant="light" color="teal">
                    embedding
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td>{request.keyId === 'dashboard' ? <Badge variant="outline" color="gray">playground</Badge> : (request.keyName ?? '—')}</Table.Td>
              <Table.Td ta="right">
                <Tooltip label={request.kind === 'embedding' ? `${request.promptTokens} input tokens (an embedding generates none)` : `${request.promptTokens} prompt + ${request.completionTokens} completion`}>
                  <span>{request.totalTokens}</span>
                </Tooltip>
              </Table.Td>
              <Table.Td ta="right">{formatUsd(request.costUsd)}</Table.Td>
              <Table.Td ta="right">{formatMs(request.latencyMs)}</Table.Td>
              <Table.Td ta="right">{formatGrams(request.carbonGrams)}</Table.Td>
              <Table.Td ta="right">{request.attempts}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
