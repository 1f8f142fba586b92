import { Alert, Button, Checkbox, Group, Modal, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import { workspacePath } from '../api/client';
import type { CustomModel, ModelKind, SavedCustomModel } from '../api/types';
import { useSession, useWorkspace } from '../session/session-context';
import { apiErrorOf } from './provider-dialogs';

interface FormValues {
  id: string;
  kind: ModelKind;
  inputPerMTok: string;
  outputPerMTok: string;
  cachedInputPerMTok: string;
  contextWindow: string;
  maxOutputTokens: string;
  tools: boolean;
  vision: boolean;
  dimensions: string;
  space: string;
  shortenable: boolean;
}

const EMPTY: FormValues = {
  id: '',
  kind: 'chat',
  inputPerMTok: '',
  outputPerMTok: '',
  cachedInputPerMTok: '',
  contextWindow: '',
  maxOutputTokens: '',
  tools: false,
  vision: false,
  dimensions: '',
  space: '',
  shortenable: false,
};

const text = (value: number | null | undefined): string => (value === null || value === undefined ? '' : String(value));

function valuesOf(model: CustomModel): FormValues {
  return {
    id: model.id,
    kind: model.kind,
    inputPerMTok: text(model.inputPerMTok),
    outputPerMTok: model.kind === 'embedding' ? '' : text(model.outputPerMTok),
    cachedInputPerMTok: text(model.cachedInputPerMTok),
    contextWindow: text(model.contextWindow),
    maxOutputTokens: model.kind === 'embedding' ? '' : text(model.maxOutputTokens),
    tools: model.capabilities.tools,
    vision: model.capabilities.vision,
    dimensions: text(model.embedding?.dimensions),
    space: model.embedding?.space ?? '',
    shortenable: model.embedding?.shortenable ?? false,
  };
}

/**
 * Declaring a model, or its prices again: the figures go to the server as typed,
 * where the CLI's own parsers and rules read them (blank: not given).
 */
export function CustomModelModal({ opened, editing, onClose, onSaved }: { readonly opened: boolean; readonly editing: CustomModel | null; onClose(): void; onSaved(saved: SavedCustomModel): void }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [values, setValues] = useState<FormValues>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const embedding = values.kind === 'embedding';

  useEffect(() => {
    if (!opened) return;
    setValues(editing === null ? EMPTY : valuesOf(editing));
    setErrors({});
  }, [opened, editing]);

  const set = <K extends keyof FormValues>(field: K, value: FormValues[K]) => setValues((current) => ({ ...current, [field]: value }));
  const optional = (value: string) => (value.trim() === '' ? null : value.trim());

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setErrors({});
    try {
      const saved = await api.send<SavedCustomModel>('POST', workspacePath(workspace.id, '/custom-models'), {
        id: values.id.trim(),
        kind: values.kind,
        inputPerMTok: values.inputPerMTok.trim(),
        contextWindow: optional(values.contextWindow),
        ...(embedding
          ? { dimensions: optional(values.dimensions), space: optional(values.space), shortenable: values.shortenable }
          : {
              outputPerMTok: optional(values.outputPerMTok),
              cachedInputPerMTok: optional(values.cachedInputPerMTok),
              maxOutputTokens: optional(values.maxOutputTokens),
              tools: values.tools,
              vision: values.vision,
            }),
      });
      onSaved(saved);
    } catch (caught) {
      const error = apiErrorOf(caught);
      setErrors({ [error.param ?? 'form']: error.message });
    } finally {
      setSaving(false);
    }
  };

  const field = (name: keyof FormValues, label: string, description: string, placeholder = '') => (
    <TextInput
      label={label}
      description={description}
      placeholder={placeholder}
      inputMode="decimal"
      value={String(values[name])}
      onChange={(event) => set(name, event.currentTarget.value as never)}
      error={errors[name]}
    />
  );

  return (
    <Modal opened={opened} onClose={onClose} title={editing === null ? 'Add model' : `Edit ${editing.id}`} centered size="lg">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack>
          {errors.form === undefined ? null : (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
              {errors.form}
            </Alert>
          )}
          <TextInput
            label="Model id"
            description="provider:model. A preset's model the catalog lacks, a model of your custom provider, or a shipped model to give it your own prices."
            placeholder="acme:llama-3.3-70b"
            required
            readOnly={editing !== null}
            value={values.id}
            onChange={(event) => set('id', event.currentTarget.value)}
            error={errors.id}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Kind
            </Text>
            <SegmentedControl
              aria-label="Kind"
              data={[
                { value: 'chat', label: 'Chat' },
                { value: 'embedding', label: 'Embedding' },
              ]}
              value={values.kind}
              onChange={(value) => set('kind', value === 'embedding' ? 'embedding' : 'chat')}
            />
            {errors.kind === undefined ? null : (
              <Text size="xs" c="red">
                {errors.kind}
              </Text>
            )}
          </Stack>
          <SimpleGrid cols={{ base: 1, sm: embedding ? 1 : 3 }}>
            {field('inputPerMTok', 'Input price', 'USD per million prompt tokens', '0.59')}
            {embedding ? null : field('outputPerMTok', 'Output price', 'USD per million completion tokens', '0.79')}
            {embedding ? null : field('cachedInputPerMTok', 'Cached input price', 'Empty: the input price')}
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {field('contextWindow', 'Context window', 'Tokens. Empty: the shipped model’s, else the default', '128000')}
            {embedding ? field('dimensions', 'Dimensions', 'The vector length', '768') : field('maxOutputTokens', 'Max output', 'Tokens. Empty: the shipped model’s, else 4096', '4096')}
          </SimpleGrid>
          {embedding ? (
            <>
              <TextInput
                label="Vector space"
                description="Models of one space give comparable vectors: name deployments of one model alike. Empty: the model id."
                placeholder="nomic/nomic-embed-text-v1.5"
                value={values.space}
                onChange={(event) => set('space', event.currentTarget.value)}
                error={errors.space}
              />
              <Checkbox label={'A request’s "dimensions" may shorten the vectors'} checked={values.shortenable} onChange={(event) => set('shortenable', event.currentTarget.checked)} error={errors.shortenable} />
            </>
          ) : (
            <Group>
              <Checkbox label="Supports tool calls" checked={values.tools} onChange={(event) => set('tools', event.currentTarget.checked)} />
              <Checkbox label="Accepts images" checked={values.vision} onChange={(event) => set('vision', event.currentTarget.checked)} />
            </Group>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={saving}>
              {editing === null ? 'Add model' : 'Save'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
