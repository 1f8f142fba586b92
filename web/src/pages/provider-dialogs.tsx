import { Alert, Button, Group, Modal, PasswordInput, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconLock } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { ApiError, workspacePath } from '../api/client';
import type { ProviderCredential, ProviderPreset, SavedProvider } from '../api/types';
import { useSession, useWorkspace } from '../session/session-context';

/** The select's value for a provider that is not a preset. */
const CUSTOM = '__custom__';

export const apiErrorOf = (caught: unknown): ApiError =>
  caught instanceof ApiError ? caught : new ApiError(0, { message: String(caught), type: 'client_error', code: 'client_error' });

/** "Add provider key": a preset or a custom OpenAI-compatible server, its key and base URL. The key is sent once and never shown again. */
export function AddProviderModal({
  opened,
  onClose,
  presets,
  onSaved,
}: {
  readonly opened: boolean;
  onClose(): void;
  readonly presets: readonly ProviderPreset[];
  onSaved(saved: SavedProvider): void;
}) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [choice, setChoice] = useState<string>('openai');
  const [customName, setCustomName] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const preset = presets.find((candidate) => candidate.name === choice);
  const custom = choice === CUSTOM;

  const close = () => {
    // The key never outlives the dialog.
    setApiKey('');
    setErrors({});
    onClose();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setErrors({});
    try {
      const saved = await api.send<SavedProvider>('POST', workspacePath(workspace.id, '/providers'), {
        provider: custom ? customName.trim() : choice,
        apiKey: apiKey === '' ? null : apiKey,
        baseUrl: baseUrl.trim() === '' ? null : baseUrl.trim(),
      });
      setApiKey('');
      setBaseUrl('');
      setCustomName('');
      onSaved(saved);
    } catch (caught) {
      const error = apiErrorOf(caught);
      setErrors({ [error.param === 'provider' && !custom ? 'form' : (error.param ?? 'form')]: error.message });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal opened={opened} onClose={close} title="Add provider key" centered size="lg">
      <form onSubmit={(event) => void submit(event)} noValidate autoComplete="off">
        <Stack>
          {errors.form === undefined ? null : (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
              {errors.form}
            </Alert>
          )}
          <Select
            label="Provider"
            description="Your routers call it with your key instead of the server's. Adding a provider you already have replaces its key."
            data={[...presets.map((item) => ({ value: item.name, label: item.label })), { value: CUSTOM, label: 'Custom (OpenAI-compatible)' }]}
            value={choice}
            onChange={(value) => setChoice(value ?? 'openai')}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
          />
          {custom ? (
            <TextInput
              label="Name"
              description='Used in model ids, e.g. "acme" in acme:llama-3.3-70b: lower-case letters, digits, "-" and "_".'
              placeholder="acme"
              required
              value={customName}
              onChange={(event) => setCustomName(event.currentTarget.value)}
              error={errors.provider}
            />
          ) : null}
          <PasswordInput
            label="API key"
            description="Stored encrypted; after saving, only its last 4 characters are shown."
            required={preset?.requiresKey ?? false}
            autoComplete="new-password"
            value={apiKey}
            onChange={(event) => setApiKey(event.currentTarget.value)}
            error={errors.apiKey}
            data-testid="provider-api-key"
          />
          <TextInput
            label="Base URL"
            description={custom ? 'Required: the OpenAI-compatible server, e.g. https://llm.example.com/v1.' : 'Optional: leave empty for the provider’s own address.'}
            placeholder={preset?.defaultBaseUrl ?? 'https://llm.example.com/v1'}
            required={custom}
            value={baseUrl}
            onChange={(event) => setBaseUrl(event.currentTarget.value)}
            error={errors.baseUrl}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={saving} leftSection={<IconLock size={16} />}>
              Save key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Removing: the routers fall back to the server's key (a preset), or lose the provider and its models (a custom one). */
export function RemoveProviderModal({ credential, onClose, onDone }: { readonly credential: ProviderCredential | null; onClose(): void; onDone(modelsRemoved: number): void }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const remove = async () => {
    if (credential === null) return;
    setSaving(true);
    try {
      const removed = await api.send<{ modelsRemoved: number }>('DELETE', workspacePath(workspace.id, `/providers/${encodeURIComponent(credential.provider)}`));
      setError(null);
      onDone(removed.modelsRemoved);
    } catch (caught) {
      setError(apiErrorOf(caught).message);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Modal opened={credential !== null} onClose={onClose} title={`Remove ${credential?.provider ?? 'provider'}?`} centered>
      <Stack>
        <Text size="sm">
          {credential?.kind === 'custom'
            ? 'Your routers stop calling this provider, and the models you declared for it are deleted.'
            : 'Your routers go back to the server’s own key for this provider, if it has one.'}
        </Text>
        {error === null ? null : (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red" loading={saving} onClick={() => void remove()}>
            Remove
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
