import { ActionIcon, Badge, Group, MultiSelect, NumberInput, Paper, SegmentedControl, Select, SimpleGrid, Stack, Switch, Text, Textarea, TextInput, Tooltip } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconTrash } from '@tabler/icons-react';
import type { CatalogModel, Router } from '../api/types';
import type { StepValues } from './agents-form-values';

const TEMPLATE_HINT = 'Variables: {{input}} (the last user message), {{messages}} (the conversation), {{steps.<name>.output}}, {{steps.<name>.json.<field>}} (a JSON step\'s field).';
const KNOWN_FIELDS = new Set(['name', 'router', 'model', 'system', 'prompt', 'needs', 'temperature', 'max_tokens', 'response_format']);

export interface StepEditorProps {
  readonly step: StepValues;
  readonly index: number;
  readonly count: number;
  readonly otherNames: readonly string[];
  readonly routers: readonly Router[];
  readonly models: readonly CatalogModel[];
  /** Server errors of this step, by field (`prompt`, `router`…; '' for the step as a whole). */
  readonly errors: Readonly<Record<string, string>>;
  onChange(next: StepValues): void;
  onMove(offset: -1 | 1): void;
  onRemove(): void;
}

/** One step of the agent form: its target, templates, dependencies and sampling settings. */
export function StepEditor({ step, index, count, otherNames, routers, models, errors, onChange, onMove, onRemove }: StepEditorProps) {
  const set = <K extends keyof StepValues>(key: K, value: StepValues[K]) => onChange({ ...step, [key]: value });
  const label = step.name === '' ? `Step ${index + 1}` : `Step ${index + 1}: ${step.name}`;
  const stepErrors = Object.entries(errors).filter(([field]) => !KNOWN_FIELDS.has(field));
  return (
    <Paper withBorder p="md" radius="md" component="fieldset" aria-label={label} style={{ margin: 0 }}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Badge variant="light" radius="sm">
              {index + 1}
            </Badge>
            <Text fw={600}>{step.name === '' ? 'New step' : step.name}</Text>
            {index === count - 1 ? (
              <Text size="xs" c="dimmed">
                last step: gives the answer
              </Text>
            ) : null}
          </Group>
          <Group gap={4}>
            <Tooltip label="Move up">
              <ActionIcon variant="subtle" aria-label={`Move ${label} up`} disabled={index === 0} onClick={() => onMove(-1)}>
                <IconArrowUp size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Move down">
              <ActionIcon variant="subtle" aria-label={`Move ${label} down`} disabled={index === count - 1} onClick={() => onMove(1)}>
                <IconArrowDown size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Remove step">
              <ActionIcon variant="subtle" color="red" aria-label={`Remove ${label}`} disabled={count === 1} onClick={onRemove}>
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Group>
        {stepErrors.map(([field, message]) => (
          <Text key={field} c="red" size="sm" role="alert">
            {message}
          </Text>
        ))}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Step name" description="A slug; templates refer to it." required value={step.name} onChange={(event) => set('name', event.currentTarget.value)} error={errors.name} />
          <MultiSelect
            label="Needs"
            description="Steps that must finish first (templates add their own)."
            data={otherNames.map((name) => ({ value: name, label: name }))}
            value={step.needs.filter((name) => otherNames.includes(name))}
            onChange={(value) => set('needs', value)}
            error={errors.needs}
            clearable
          />
        </SimpleGrid>
        <Stack gap={6}>
          <SegmentedControl
            aria-label={`${label}: call a router or a model`}
            value={step.target}
            onChange={(value) => set('target', value === 'model' ? 'model' : 'router')}
            data={[
              { value: 'router', label: 'Router' },
              { value: 'model', label: 'Model' },
            ]}
            w={220}
          />
          {step.target === 'router' ? (
            <Select
              label="Router"
              description="Routed with its strategy and fallback."
              placeholder={routers.length === 0 ? 'No routers in this workspace yet' : 'Choose a router'}
              data={routers.map((router) => ({ value: router.id, label: `${router.name} (${router.id})` }))}
              value={step.router === '' ? null : step.router}
              onChange={(value) => set('router', value ?? '')}
              error={errors.router}
              searchable
              required
            />
          ) : (
            <Select
              label="Model"
              description="Called directly, with no fallback."
              placeholder="provider:model"
              data={models.map((model) => ({ value: model.id, label: model.available ? model.id : `${model.id} (no credentials)` }))}
              value={step.model === '' ? null : step.model}
              onChange={(value) => set('model', value ?? '')}
              error={errors.model}
              searchable
              required
            />
          )}
        </Stack>
        <Textarea label="System" description="Optional system message template." autosize minRows={1} maxRows={6} value={step.system} onChange={(event) => set('system', event.currentTarget.value)} error={errors.system} />
        <Textarea label="Prompt" description={TEMPLATE_HINT} required autosize minRows={2} maxRows={12} value={step.prompt} onChange={(event) => set('prompt', event.currentTarget.value)} error={errors.prompt} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
        <Group align="flex-end" gap="lg">
          <NumberInput label="Temperature" placeholder="default" min={0} max={2} step={0.1} decimalScale={2} w={140} value={step.temperature} onChange={(value) => set('temperature', typeof value === 'number' ? value : '')} error={errors.temperature} />
          <NumberInput label="Max tokens" placeholder="default" min={1} step={100} allowDecimal={false} w={140} value={step.maxTokens} onChange={(value) => set('maxTokens', typeof value === 'number' ? value : '')} error={errors.max_tokens} />
          <Switch label="JSON output" description="Later steps may read its fields." checked={step.json} onChange={(event) => set('json', event.currentTarget.checked)} error={errors.response_format} mb={4} />
        </Group>
      </Stack>
    </Paper>
  );
}
