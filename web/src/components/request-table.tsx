import { Badge, Table, Text, Tooltip } from '@mantine/core';
import { useNavigate } from 'react-router-dom';
import type { UsageRequest } from '../api/types';
import { FeedbackThumbs } from './feedback-thumbs';
import { formatDateTime, formatGrams, formatMs, formatRelative, formatUsd } from './format';

export interface RequestTableProps {
  readonly requests: readonly UsageRequest[];
  /** Hide the router column (on a router's own page). */
  readonly showRouter?: boolean;
  /** Offer thumbs up/down on answered `auto` requests (people who may change the workspace's routers). */
  readonly canRate?: boolean;
}

/** Answered requests of an `auto` router: they carry the strongest model's cost, and take feedback. */
const isRatable = (request: UsageRequest): boolean => request.counterfactualCostUsd !== null && request.status < 400;

/** Request records with the figures of their `_meta`: model used, cost, latency, carbon, attempts. */
export function RequestTable({ requests, showRouter = true, canRate = false }: RequestTableProps) {
  const rating = canRate && requests.some(isRatable);
  // A row opens the request's page: its routing, every attempt, its bodies when kept.
  const navigate = useNavigate();
  return (
    <Table.ScrollContainer minWidth={(showRouter ? 880 : 760) + (rating ? 80 : 0)}>
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
            {rating ? <Table.Th>Answer</Table.Th> : null}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {requests.map((request) => (
            <Table.Tr key={request.id} data-testid="request-row" style={{ cursor: 'pointer' }} onClick={() => navigate(`/usage/requests/${encodeURIComponent(request.id)}`)}>
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
              <Table.Td ta="right">
                {request.counterfactualCostUsd === null ? (
                  formatUsd(request.costUsd)
                ) : (
                  <Tooltip label={`${formatUsd(request.counterfactualCostUsd)} on the router's strongest model`}>
                    <span>{formatUsd(request.costUsd)}</span>
                  </Tooltip>
                )}
              </Table.Td>
              <Table.Td ta="right">{formatMs(request.latencyMs)}</Table.Td>
              <Table.Td ta="right">{formatGrams(request.carbonGrams)}</Table.Td>
              <Table.Td ta="right">{request.attempts}</Table.Td>
              {rating ? <Table.Td onClick={(event) => event.stopPropagation()}>{isRatable(request) ? <FeedbackThumbs requestId={request.id} size="xs" /> : null}</Table.Td> : null}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
