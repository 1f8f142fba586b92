import { Badge, Checkbox, Group, Pill, Select, Stack, Switch, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import type { CatalogModel, ModelKind } from '../api/types';
import { formatPrice, formatTokens } from '../components/format';

export interface ModelPickerProps {
  readonly catalog: readonly CatalogModel[];
  /** The router's kind: only models of it are offered. */
  readonly kind: ModelKind;
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

/** What would make the model available (the variable to set, the key to add, the server to start), on hover or focus. */
function UnavailableBadge({ reason }: { readonly reason: string | undefined }) {
  const text = reason ?? 'Its provider is not configured on this server';
  return (
    <Tooltip label={text} multiline w={320} events={{ hover: true, focus: true, touch: true }}>
      <Badge size="xs" color="gray" variant="outline" tabIndex={0} aria-label={`unavailable: ${text}`} onClick={(event) => event.stopPropagation()}>
        unavailable
      </Badge>
    </Tooltip>
  );
}

/** `1536`, `3072, shortenable`: an embedding model's vector length. */
function dimensionsOf(model: CatalogModel): string {
  if (model.embedding === undefined) return '—';
  return model.embedding.shortenable ? `${model.embedding.dimensions}, shortenable` : String(model.embedding.dimensions);
}

/**
 * The catalog's models of the router's kind as a searchable table, with prices, context windows and
 * capabilities (embedding models: dimensions and vector space); ticking a row adds the model to the
 * router, and the chosen ones show as removable pills in order. Once an embedding model is chosen,
 * models of other vector spaces cannot be: their vectors are not comparable. Rows keep the catalog's
 * order (callable models first, the simulator's first among them); the table grows with the page
 * rather than scrolling in a box of its own, and scrolls sideways only on narrow screens.
 */
export function ModelPicker({ catalog, kind, value, onChange, error }: ModelPickerProps) {
  const [query, setQuery] = useState('');
  const [provider, setProvider] = useState<string | null>(null);
  const [availableOnly, setAvailableOnly] = useState(true);
  const ofKind = useMemo(() => catalog.filter((model) => model.kind === kind), [catalog, kind]);
  const providers = useMemo(() => [...new Set(ofKind.map((model) => model.provider))].sort(), [ofKind]);
  const chosen = new Set(value);
  const embedding = kind === 'embedding';
  // The space of the first chosen model: the router's, which every other model must share.
  const space = embedding ? ofKind.find((model) => model.id === value[0])?.embedding?.space : undefined;
  const rows = useMemo(() => {
    const needle = query.trim().toLowerCase();
    return ofKind.filter(
      (model) =>
        // Available only: what can be called now (the server checks its local model servers), and what the router
        // already has, so it can be unticked.
        (!availableOnly || (model.available && model.retired !== true) || chosen.has(model.id)) &&
        (provider === null || model.provider === provider) &&
        (needle === '' || model.id.toLowerCase().includes(needle) || model.name.toLowerCase().includes(needle)),
    );
    // chosen follows value
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ofKind, query, provider, availableOnly, value]);

  const toggle = (id: string) => onChange(chosen.has(id) ? value.filter((item) => item !== id) : [...value, id]);
  const otherSpace = (model: CatalogModel) => space !== undefined && !chosen.has(model.id) && model.embedding?.space !== space;

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
          {embedding
            ? 'The router chooses among these for every request, and falls back only between deployments of one model: vectors from different models are not comparable. Prices are per million input tokens.'
            : 'The router chooses among these for every request. Prices are per million tokens.'}
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
      <Table.ScrollContainer minWidth={640} type="native" style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-md)' }}>
        <Table highlightOnHover verticalSpacing={6} data-testid="model-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40} />
              <Table.Th>Model</Table.Th>
              <Table.Th ta="right">Input</Table.Th>
              {embedding ? (
                <>
                  <Table.Th ta="right">Dimensions</Table.Th>
                  <Table.Th ta="right">
                    <Tooltip label="The most tokens one input may have">
                      <span>Max input</span>
                    </Tooltip>
                  </Table.Th>
                  <Table.Th>
                    <Tooltip label="Models of one space give comparable vectors">
                      <span>Vector space</span>
                    </Tooltip>
                  </Table.Th>
                </>
              ) : (
                <>
                  <Table.Th ta="right">Output</Table.Th>
                  <Table.Th ta="right">Context</Table.Th>
                  <Table.Th>Capabilities</Table.Th>
                  <Table.Th ta="right">
                    <Tooltip label="LMArena-style rating: higher answers better">
                      <span>Rating</span>
                    </Tooltip>
                  </Table.Th>
                </>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={embedding ? 5 : 7}>
                  <Text c="dimmed" size="sm" ta="center" py="md">
                    No model matches.
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : (
              rows.map((model) => (
                <Table.Tr
                  key={model.id}
                  {...(chosen.has(model.id) ? { bg: 'var(--mantine-primary-color-light)' } : {})}
                  onClick={() => (otherSpace(model) ? undefined : toggle(model.id))}
                  style={{ cursor: otherSpace(model) ? 'not-allowed' : 'pointer', opacity: otherSpace(model) ? 0.55 : 1 }}
                >
                  <Table.Td onClick={(event) => event.stopPropagation()}>
                    <Tooltip label={`Another vector space than ${space ?? ''}: its vectors are not comparable`} disabled={!otherSpace(model)}>
                      <Checkbox aria-label={`Use ${model.id}`} checked={chosen.has(model.id)} disabled={otherSpace(model)} onChange={() => toggle(model.id)} />
                    </Tooltip>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {model.id}
                    </Text>
                    <Group gap={4}>
                      <Text size="xs" c="dimmed">
                        {model.name}
                      </Text>
                      {model.available ? null : <UnavailableBadge reason={model.unavailableReason} />}
                    </Group>
                  </Table.Td>
                  <Table.Td ta="right">{formatPrice(model.inputPerMTok)}</Table.Td>
                  {embedding ? (
                    <>
                      <Table.Td ta="right">{dimensionsOf(model)}</Table.Td>
                      <Table.Td ta="right">{formatTokens(model.contextWindow)}</Table.Td>
                      <Table.Td>
                        <Text size="xs" ff="monospace">
                          {model.embedding?.space ?? '—'}
                        </Text>
                      </Table.Td>
                    </>
                  ) : (
                    <>
                      <Table.Td ta="right">{formatPrice(model.outputPerMTok)}</Table.Td>
                      <Table.Td ta="right">{formatTokens(model.contextWindow)}</Table.Td>
                      <Table.Td>
                        <Capabilities model={model} />
                      </Table.Td>
                      <Table.Td ta="right">{model.quality === null || model.quality === undefined ? '—' : Math.round(model.quality)}</Table.Td>
                    </>
                  )}
                </Table.Tr>
              ))
            )}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
