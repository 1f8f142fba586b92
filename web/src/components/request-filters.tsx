import { Button, Group, Select, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';

/** The request log's filters, as the list endpoint takes them (absent: not filtered). */
export interface RequestFilterValues {
  readonly routerId: string | null;
  readonly keyId: string | null;
  readonly model: string;
  readonly status: string | null;
  /** How far back: `1h`, `24h`, `7d`, `30d`, or null for all. */
  readonly since: string | null;
}

export const NO_FILTERS: RequestFilterValues = { routerId: null, keyId: null, model: '', status: null, since: null };

const SINCE_MS: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };

/** The list endpoint's query string for these filters (`now` fixes the `from` of a relative range). */
export function filterQuery(filters: RequestFilterValues, now: number): string {
  const params = new URLSearchParams();
  if (filters.routerId !== null) params.set('routerId', filters.routerId);
  if (filters.keyId !== null) params.set('keyId', filters.keyId);
  if (filters.model.trim() !== '') params.set('model', filters.model.trim());
  if (filters.status !== null) params.set('status', filters.status);
  const span = filters.since === null ? undefined : SINCE_MS[filters.since];
  if (span !== undefined) params.set('from', String(now - span));
  return params.toString();
}

export interface RequestFiltersProps {
  readonly value: RequestFilterValues;
  readonly onChange: (value: RequestFilterValues) => void;
  readonly routers: readonly { readonly id: string; readonly name: string }[];
  readonly keys: readonly { readonly id: string; readonly name: string }[];
}

/** Router, model, key, status and time filters over the request table. */
export function RequestFilters({ value, onChange, routers, keys }: RequestFiltersProps) {
  const [model, setModel] = useState(value.model);
  return (
    <Group gap="xs" align="end" wrap="wrap" data-testid="request-filters">
      <Select size="xs" label="Router" placeholder="Any" clearable data={routers.map((router) => ({ value: router.id, label: router.name }))} value={value.routerId} onChange={(routerId) => onChange({ ...value, routerId })} />
      <TextInput
        size="xs"
        label="Model"
        placeholder="provider:model"
        value={model}
        onChange={(event) => setModel(event.currentTarget.value)}
        onBlur={() => onChange({ ...value, model })}
        onKeyDown={(event) => {
          if (event.key === 'Enter') onChange({ ...value, model });
        }}
      />
      <Select size="xs" label="Key" placeholder="Any" clearable data={keys.map((key) => ({ value: key.id, label: key.name }))} value={value.keyId} onChange={(keyId) => onChange({ ...value, keyId })} />
      <Select
        size="xs"
        label="Status"
        placeholder="Any"
        clearable
        data={[
          { value: 'ok', label: 'Answered' },
          { value: 'error', label: 'Errors' },
          { value: '429', label: '429' },
          { value: '503', label: '503' },
        ]}
        value={value.status}
        onChange={(status) => onChange({ ...value, status })}
      />
      <Select
        size="xs"
        label="Time"
        placeholder="Any time"
        clearable
        data={[
          { value: '1h', label: 'Last hour' },
          { value: '24h', label: 'Last 24 hours' },
          { value: '7d', label: 'Last 7 days' },
          { value: '30d', label: 'Last 30 days' },
        ]}
        value={value.since}
        onChange={(since) => onChange({ ...value, since })}
      />
    </Group>
  );
}

/** A box where a `_meta.requestId` (or `x-request-id`) is pasted to open that request. */
export function OpenRequestBox() {
  const [id, setId] = useState('');
  const navigate = useNavigate();
  const open = () => {
    const trimmed = id.trim();
    if (trimmed !== '') navigate(`/usage/requests/${encodeURIComponent(trimmed)}`);
  };
  return (
    <Group gap="xs" align="end" data-testid="open-request">
      <TextInput
        size="xs"
        label="Open a request"
        placeholder="Paste a _meta.requestId"
        value={id}
        onChange={(event) => setId(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') open();
        }}
        w={260}
      />
      <Button size="xs" variant="light" onClick={open} disabled={id.trim() === ''}>
        Open
      </Button>
    </Group>
  );
}
