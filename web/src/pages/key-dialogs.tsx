import { Alert, Button, Group, Modal, MultiSelect, NumberInput, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconLock } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { ApiError, workspacePath } from '../api/client';
import type { ApiKey, CreatedKey, Router } from '../api/types';
import { CopyValue } from '../components/copy-value';
import { useSession, useWorkspace } from '../session/session-context';

const DAY_MS = 86_400_000;

const EXPIRY_CHOICES = [
  { value: 'never', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days (recommended)' },
  { value: '365', label: 'In a year' },
];

const GRACE_CHOICES = [
  { value: '0', label: 'At once' },
  { value: '60', label: 'After 1 hour' },
  { value: '1440', label: 'After 24 hours' },
  { value: '10080', label: 'After 7 days' },
];

const messageOf = (caught: unknown) => (caught instanceof ApiError ? caught : new ApiError(0, { message: String(caught), type: 'client_error', code: 'client_error' }));

/** "Generate New API Key": name, router scope, rate and token limits, concurrency cap, budget and expiry (as `key create`). */
export function GenerateKeyModal({ opened, onClose, routers, onCreated }: { readonly opened: boolean; onClose(): void; readonly routers: readonly Router[]; onCreated(key: CreatedKey): void }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [name, setName] = useState('');
  const [routerIds, setRouterIds] = useState<string[]>([]);
  const [rpmLimit, setRpmLimit] = useState<number | ''>('');
  const [tpmLimit, setTpmLimit] = useState<number | ''>('');
  const [maxConcurrency, setMaxConcurrency] = useState<number | ''>('');
  const [budgetUsd, setBudgetUsd] = useState<number | ''>('');
  const [budgetPeriod, setBudgetPeriod] = useState<'day' | 'month'>('month');
  const [expiry, setExpiry] = useState('90');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);

  const reset = () => {
    setName('');
    setRouterIds([]);
    setRpmLimit('');
    setTpmLimit('');
    setMaxConcurrency('');
    setBudgetUsd('');
    setBudgetPeriod('month');
    setExpiry('90');
    setErrors({});
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') {
      setErrors({ name: 'Name the key after where it will be used, e.g. production or staging.' });
      return;
    }
    setSaving(true);
    setErrors({});
    try {
      const created = await api.send<CreatedKey>('POST', workspacePath(workspace.id, '/keys'), {
        name: name.trim(),
        routerIds: routerIds.length === 0 ? null : routerIds,
        rpmLimit: rpmLimit === '' ? null : rpmLimit,
        tpmLimit: tpmLimit === '' ? null : tpmLimit,
        maxConcurrency: maxConcurrency === '' ? null : maxConcurrency,
        budget: budgetUsd === '' ? null : { usd: budgetUsd, period: budgetPeriod },
        expiresAt: expiry === 'never' ? null : new Date(Date.now() + Number(expiry) * DAY_MS).toISOString(),
      });
      reset();
      onCreated(created);
    } catch (caught) {
      const error = messageOf(caught);
      setErrors({ [error.param ?? 'form']: error.message });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Generate New API Key" centered size="lg">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack>
          {errors.form === undefined ? null : (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
              {errors.form}
            </Alert>
          )}
          <TextInput label="Name" description="Where the key is used, so you know what breaks if you revoke it." placeholder="production" required data-autofocus maxLength={100} value={name} onChange={(event) => setName(event.currentTarget.value)} error={errors.name} />
          <MultiSelect
            label="Routers"
            description="Leave empty to allow every router of this workspace."
            placeholder={routerIds.length === 0 ? 'All routers' : undefined}
            data={routers.map((router) => ({ value: router.id, label: router.name }))}
            value={routerIds}
            onChange={setRouterIds}
            searchable
            clearable
            error={errors.routerIds}
            comboboxProps={{ withinPortal: true }}
          />
          <Group grow align="flex-start">
            <NumberInput label="Rate limit (requests per minute)" description="Empty: the server's default." min={1} step={10} allowDecimal={false} value={rpmLimit} onChange={(value) => setRpmLimit(typeof value === 'number' ? value : '')} error={errors.rpmLimit} />
            <Select label="Expires" description="Rotate keys about every 90 days." data={EXPIRY_CHOICES} value={expiry} onChange={(value) => setExpiry(value ?? 'never')} allowDeselect={false} error={errors.expiresAt} comboboxProps={{ withinPortal: true }} />
          </Group>
          <Group grow align="flex-start">
            <NumberInput label="Tokens per minute" description="Prompt and max_tokens count before the call. Empty: the server's default." min={1} step={1000} allowDecimal={false} value={tpmLimit} onChange={(value) => setTpmLimit(typeof value === 'number' ? value : '')} error={errors.tpmLimit} data-testid="key-tpm" />
            <NumberInput label="Requests in flight at once" description="Empty: no cap." min={1} step={1} allowDecimal={false} value={maxConcurrency} onChange={(value) => setMaxConcurrency(typeof value === 'number' ? value : '')} error={errors.maxConcurrency} />
          </Group>
          <Group align="flex-end">
            <NumberInput
              label="Budget (USD)"
              description="Over it, requests get 429 insufficient_quota until the UTC period resets. Empty: none."
              placeholder="No budget"
              min={0}
              decimalScale={6}
              value={budgetUsd}
              onChange={(value) => setBudgetUsd(typeof value === 'number' ? value : '')}
              error={errors['budget.usd'] ?? errors.budget ?? errors['budget.period']}
              style={{ flex: 1 }}
              data-testid="key-budget"
            />
            <SegmentedControl
              aria-label="Budget period"
              value={budgetPeriod}
              onChange={(value) => setBudgetPeriod(value === 'day' ? 'day' : 'month')}
              data={[
                { value: 'day', label: 'Per day' },
                { value: 'month', label: 'Per month' },
              ]}
            />
          </Group>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={saving}>
              Generate key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The new key, once: copy it now or never. */
export function ShownOnceModal({ created, onClose }: { readonly created: CreatedKey | null; onClose(): void }) {
  return (
    <Modal opened={created !== null} onClose={onClose} title="Your new API key" centered size="lg" closeOnClickOutside={false} data-testid="key-dialog">
      {created === null ? null : (
        <Stack>
          <Alert color="yellow" variant="light" icon={<IconLock size={18} />} title="Copy it now: you will not see this key again">
            ModelPort keeps only a hash of it. Store it in a secret manager or an environment variable, never in code.
          </Alert>
          <Text size="sm">
            <b>{created.name}</b>
          </Text>
          <CopyValue value={created.key} label="Copy API key" testId="new-key" />
          <Group justify="flex-end">
            <Button onClick={onClose}>I have copied it</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

/** Revoking: immediate and final. */
export function RevokeKeyModal({ apiKey, onClose, onDone }: { readonly apiKey: ApiKey | null; onClose(): void; onDone(): void }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const revoke = async () => {
    if (apiKey === null) return;
    setSaving(true);
    try {
      await api.send('POST', workspacePath(workspace.id, `/keys/${apiKey.id}/revoke`));
      setError(null);
      onDone();
    } catch (caught) {
      setError(messageOf(caught).message);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Modal opened={apiKey !== null} onClose={onClose} title={`Revoke ${apiKey?.name ?? 'key'}?`} centered>
      <Stack>
        <Text size="sm">Every request with this key will be refused within a second. This cannot be undone.</Text>
        {error === null ? null : (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red" loading={saving} onClick={() => void revoke()}>
            Revoke key
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Rotating: a new key with the same settings; the old one ends after a grace period. */
export function RotateKeyModal({ apiKey, onClose, onRotated }: { readonly apiKey: ApiKey | null; onClose(): void; onRotated(key: CreatedKey): void }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [grace, setGrace] = useState('1440');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const rotate = async () => {
    if (apiKey === null) return;
    setSaving(true);
    try {
      const created = await api.send<CreatedKey>('POST', workspacePath(workspace.id, `/keys/${apiKey.id}/rotate`), { graceMinutes: Number(grace) });
      setError(null);
      onRotated(created);
    } catch (caught) {
      setError(messageOf(caught).message);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Modal opened={apiKey !== null} onClose={onClose} title={`Rotate ${apiKey?.name ?? 'key'}`} centered>
      <Stack>
        <Text size="sm">A new key with the same name, routers, limits, budget and lifetime is created. The old key keeps working until the grace period ends, so you can deploy the new one first.</Text>
        <Select label="Old key stops working" data={GRACE_CHOICES} value={grace} onChange={(value) => setGrace(value ?? '0')} allowDeselect={false} comboboxProps={{ withinPortal: true }} />
        {error === null ? null : (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={saving} onClick={() => void rotate()}>
            Rotate key
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
