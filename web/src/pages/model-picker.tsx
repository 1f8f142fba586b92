import { Badge, Checkbox, Group, Pill, ScrollArea, Select, Stack, Switch, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import type { CatalogModel } from '../api/types';
import { formatPrice, formatTokens } from '../components/format';

export interface ModelPickerProps {
  readonly catalog: readonly CatalogModel[];
  /** Chosen model ids, in order of preference. */
  readonly value: readonly string[];
  onChange(value: string[]): void;
  readonly error?: string | undefined;
}

function Capabilities({ model }: { readonly model: CatalogModel }) {
  const entries = [
    ['tools', 'Tools'],
    ['vision', 'Vision'],
    ['json', 'JSON'],
    ['streaming', 'Stream'],
  ] as const;
  return (
    <Group gap={4} wrap="nowrap">
      {entries
        .filter(([key]) => model.capabilities[key] === true)
        .map(([key, label]) => (
          <Badge key={key} size="xs" variant="light" color="grape">
            {label}
          </Badge>
        ))}
    </Group>
  );
}

/**
 * The catalog as a searchable table with prices, context windows and capabilities; ticking a
 * row adds the model to the router, and the chosen ones show as removable pills in order.
 */
export function ModelPicker({ catalog, value, onChange, error }: ModelPickerProps) {
  const [query, setQuery] = useState('');
  const [provider, setProvider] = useState<string | null>(null);
  const [availableOnly, setAvailableOnly] = useState(true);
  const providers = useMemo(() => [...new Set(catalog.map((model) => model.provider))].sort(), [catalog]);
  const chosen = new Set(value);
  const rows = useMemo(() => {
    const needle = query.trim().toLowerCase();
    return catalog.filter(
      (model) =>
        (!availableOnly || (model.available && model.retired !== true) || chosen.has(model.id)) &&
        (provider === null || model.provider === provider) &&
        (needle === '' || model.id.toLowerCase().includes(needle) || model.name.toLowerCase().includes(needle)),
    );
    // chosen follows value
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [catalog, query, provider, availableOnly, value]);

  const toggle = (id: string) => onChange(chosen.has(id) ? value.filter((item) => item !== id) : [...value, id]);

  return (
    <Stack gap="xs">
      <div>
        <Text size="sm" fw={500}>
          Preferred models{' '}
          <Text span c="red">
            *
          </Text>
        </Text>
        <Text size="xs" c="dimmed">
          The router chooses among these for every request. Prices are per million tokens.
        </Text>
      </div>
      <Group gap={6} mih={30} data-testid="chosen-models" aria-live="polite">
        {value.length === 0 ? (
          <Text size="sm" c={error === undefined ? 'dimmed' : 'red'}>
            {error ?? 'No model chosen yet: tick models in the table below.'}
          </Text>
        ) : (
          value.map((id) => (
            <Pill key={id} withRemoveButton onRemove={() => toggle(id)} removeButtonProps={{ 'aria-label': `Remove ${id}` }} size="md">
              {id}
            </Pill>
          ))
        )}
      </Group>
      {value.length > 0 && error !== undefined ? (
        <Text size="xs" c="red">
          {error}
        </Text>
      ) : null}
      <Group gap="xs" align="flex-end">
        <TextInput aria-label="Search models" placeholder="Search models" leftSection={<IconSearch size={16} />} value={query} onChange={(event) => setQuery(event.currentTarget.value)} style={{ flex: '1 1 200px' }} />
        <Select aria-label="Provider" placeholder="All providers" data={providers} value={provider} onChange={setProvider} clearable w={170} />
        <Switch label="Available only" checked={availableOnly} onChange={(event) => setAvailableOnly(event.currentTarget.checked)} mb={8} />
      </Group>
      <ScrollArea.Autosize mah={360} type="auto" style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-md)' }}>
        <Table stickyHeader highlightOnHover verticalSpacing={6} miw={640}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40} />
              <Table.Th>Model</Table.Th>
              <Table.Th ta="right">Input</Table.Th>
              <Table.Th ta="right">Output</Table.Th>
              <Table.Th ta="right">Context</Table.Th>
              <Table.Th>Capabilities</Table.Th>
              <Table.Th ta="right">
                <Tooltip label="LMArena-style rating: higher answers better">
                  <span>Rating</span>
                </Tooltip>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={7}>
                  <Text c="dimmed" size="sm" ta="center" py="md">
                    No model matches.
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : (
              rows.map((model) => (
                <Table.Tr key={model.id} {...(chosen.has(model.id) ? { bg: 'var(--mantine-primary-color-light)' } : {})} onClick={() => toggle(model.id)} style={{ cursor: 'pointer' }}>
                  <Table.Td onClick={(event) => event.stopPropagation()}>
                    <Checkbox aria-label={`Use ${model.id}`} checked={chosen.has(model.id)} onChange={() => toggle(model.id)} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {model.id}
                    </Text>
                    <Group gap={4}>
                      <Text size="xs" c="dimmed">
                        {model.name}
                      </Text>
                      {model.available ? null : (
                        <Tooltip label="The server has no credentials for this provider">
                          <Badge size="xs" color="gray" variant="outline">
                            unavailable
                          </Badge>
                        </Tooltip>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td ta="right">{formatPrice(model.inputPerMTok)}</Table.Td>
                  <Table.Td ta="right">{formatPrice(model.outputPerMTok)}</Table.Td>
                  <Table.Td ta="right">{formatTokens(model.contextWindow)}</Table.Td>
                  <Table.Td>
                    <Capabilities model={model} />
                  </Table.Td>
                  <Table.Td ta="right">{model.quality === null || model.quality === undefined ? '—' : Math.round(model.quality)}</Table.Td>
                </Table.Tr>
              ))
            )}
          </Table.Tbody>
        </Table>
      </ScrollArea.Autosize>
    </Stack>
  );
}
