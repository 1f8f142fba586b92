import { Accordion, Alert, Button, Group, NumberInput, Paper, Radio, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError, workspacePath } from '../api/client';
import type { CatalogModel, ModelKind, Router, Strategy } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { useSession, useWorkspace } from '../session/session-context';
import { ModelPicker } from './model-picker';
import { limitsBody, limitsOf, RouterLimitsFields, type RouterLimitsValues } from './router-limits-fields';
import { requestLogOf, requestLogSetting, RouterRequestLogCard, type RequestLogValues } from './router-request-log-card';

type Weights = { cost: number | ''; latency: number | ''; quality: number | ''; carbon: number | '' };

interface FormValues {
  name: string;
  /** What the router serves; the picker offers only models of this kind. Not sent: the server reads it off the models. */
  kind: ModelKind;
  models: string[];
  strategy: string;
  maxCost: number | '';
  qualityTarget: number | '';
  /** auto: share of requests that explore; empty: the default. */
  exploration: number | '';
  weights: Weights;
  limits: RouterLimitsValues;
  requestLog: RequestLogValues;
}

const emptyWeights: Weights = { cost: '', latency: '', quality: '', carbon: '' };

function valuesOf(router: Router | undefined): FormValues {
  const weights = router?.settings?.weights;
  return {
    name: router?.name ?? '',
    kind: router?.kind ?? 'chat',
    models: [...(router?.models ?? [])],
    strategy: router?.strategy ?? 'cost_optimized',
    maxCost: router?.settings?.maxCostPerRequestUsd ?? '',
    qualityTarget: router?.settings?.qualityTarget ?? '',
    exploration: router?.settings?.exploration ?? '',
    weights: { cost: weights?.cost ?? '', latency: weights?.latency ?? '', quality: weights?.quality ?? '', carbon: weights?.carbon ?? '' },
    limits: limitsOf(router),
    requestLog: requestLogOf(router),
  };
}

/** Settings as the API takes them: on edit, a cleared field is `null` (back to the default). */
function settingsOf(values: FormValues, forPatch: boolean): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  const weightEntries = Object.entries(values.weights).filter(([, value]) => value !== '');
  if (weightEntries.length > 0) settings.weights = Object.fromEntries(weightEntries);
  else if (forPatch) settings.weights = null;
  if (values.qualityTarget !== '') settings.qualityTarget = values.qualityTarget;
  else if (forPatch) settings.qualityTarget = null;
  if (values.maxCost !== '') settings.maxCostPerRequestUsd = values.maxCost;
  else if (forPatch) settings.maxCostPerRequestUsd = null;
  // An auto setting: other strategies never read it, so they leave it as it is.
  if (values.strategy === 'auto') {
    if (values.exploration !== '') settings.exploration = values.exploration;
    else if (forPatch) settings.exploration = null;
  }
  const requestLog = requestLogSetting(values.requestLog, forPatch);
  if (requestLog !== undefined) settings.requestLog = requestLog;
  return settings;
}

/** The router form; `router` undefined creates one. */
function RouterForm({ router }: { readonly router?: Router }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const navigate = useNavigate();
  const catalog = useApi<unknown>(`/catalog?workspace=${encodeURIComponent(workspace.id)}`);
  const strategies = useApi<unknown>('/strategies');
  const [values, setValues] = useState<FormValues>(() => valuesOf(router));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof FormValues>(key: K, value: FormValues[K]) => setValues((current) => ({ ...current, [key]: value }));
  const models = listOf<CatalogModel>(catalog.data);
  // auto predicts the quality of chat answers: an embedding router does not offer it.
  const strategyList = listOf<Strategy>(strategies.data).filter((strategy) => values.kind === 'chat' || strategy.id !== 'auto');
  const changeKind = (kind: ModelKind) =>
    setValues((current) => ({
      ...current,
      kind,
      models: current.models.filter((id) => models.find((model) => model.id === id)?.kind === kind),
      strategy: kind === 'embedding' && current.strategy === 'auto' ? 'cost_optimized' : current.strategy,
    }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const local: Record<string, string> = {};
    if (values.name.trim() === '') local.name = 'Give the router a name.';
    if (values.models.length === 0) local.models = 'Choose at least one model.';
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    setSaving(true);
    try {
      const body = { name: values.name.trim(), models: values.models, strategy: values.strategy, settings: settingsOf(values, router !== undefined), ...limitsBody(values.limits, router) };
      const saved =
        router === undefined
          ? await api.send<Router>('POST', workspacePath(workspace.id, '/routers'), body)
          : await api.send<Router>('PATCH', workspacePath(workspace.id, `/routers/${router.id}`), body);
      notifications.show({ color: 'teal', title: router === undefined ? 'Router created' : 'Router saved', message: saved.name });
      navigate(`/routers/${saved.id}`);
    } catch (caught) {
      const error = caught instanceof ApiError ? caught : new ApiError(0, { message: String(caught), type: 'client_error', code: 'client_error' });
      setErrors({ [error.param ?? 'form']: error.message });
    } finally {
      setSaving(false);
    }
  };

  if (catalog.error !== null) return <ErrorAlert error={catalog.error} onRetry={catalog.reload} title="Could not load the model catalog" />;
  if (strategies.error !== null) return <ErrorAlert error={strategies.error} onRetry={strategies.reload} title="Could not load strategies" />;
  if (catalog.data === undefined || strategies.data === undefined) return <LoadingRows rows={6} />;
  const settingsError = Object.entries(errors).find(([key]) => key.startsWith('settings'))?.[1];

  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      <Stack gap="lg">
        {errors.form === undefined ? null : (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
            {errors.form}
          </Alert>
        )}
        <Paper withBorder p="lg" radius="md">
          <TextInput label="Name" description="For you and your team, e.g. support-bot or summaries-prod." required data-autofocus maxLength={100} value={values.name} onChange={(event) => set('name', event.currentTarget.value)} error={errors.name} />
        </Paper>
        <Paper withBorder p="lg" radius="md">
          <Stack gap="md">
            <div>
              <Text size="sm" fw={500} id="router-kind-label">
                Serves
              </Text>
              <Text size="xs" c="dimmed" mb={6}>
                A router serves chat completions or embeddings, as its models do.
              </Text>
              <SegmentedControl
                aria-labelledby="router-kind-label"
                value={values.kind}
                onChange={(value) => changeKind(value === 'embedding' ? 'embedding' : 'chat')}
                data={[
                  { value: 'chat', label: 'Chat completions' },
                  { value: 'embedding', label: 'Embeddings' },
                ]}
              />
            </div>
            <ModelPicker catalog={models} kind={values.kind} value={values.models} onChange={(next) => set('models', next)} error={errors.models} />
          </Stack>
        </Paper>
        <Paper withBorder p="lg" radius="md">
          <Radio.Group label="Optimization strategy" description="How the router picks among your models for each request." value={values.strategy} onChange={(value) => set('strategy', value)} error={errors.strategy} required>
            <SimpleGrid cols={{ base: 1, sm: 2 }} mt="sm" spacing="sm">
              {strategyList.map((strategy) => (
                <Radio.Card key={strategy.id} value={strategy.id} radius="md" p="md" aria-label={`${strategy.label} (${strategy.id})`}>
                  <Group wrap="nowrap" align="flex-start">
                    <Radio.Indicator />
                    <div>
                      <Text fw={600} size="sm">
                        {strategy.label}{' '}
                        <Text span size="xs" c="dimmed" ff="monospace">
                          {strategy.id}
                        </Text>
                      </Text>
                      <Text size="sm" c="dimmed">
                        {strategy.description}
                      </Text>
                    </div>
                  </Group>
                </Radio.Card>
              ))}
            </SimpleGrid>
          </Radio.Group>
        </Paper>
        <RouterLimitsFields values={values.limits} onChange={(limits) => set('limits', limits)} errors={errors} />
        <Accordion variant="contained" radius="md" defaultValue={settingsError === undefined ? null : 'settings'}>
          <Accordion.Item value="settings">
            <Accordion.Control>Advanced settings</Accordion.Control>
            <Accordion.Panel>
              <Stack>
                {settingsError === undefined ? null : (
                  <Text c="red" size="sm" role="alert">
                    {settingsError}
                  </Text>
                )}
                <NumberInput
                  label="Cost ceiling per request (USD)"
                  description="Models whose expected cost for a request exceeds this are skipped. Empty: no ceiling."
                  min={0}
                  decimalScale={6}
                  step={0.001}
                  value={values.maxCost}
                  onChange={(value) => set('maxCost', typeof value === 'number' ? value : '')}
                  error={errors['settings.maxCostPerRequestUsd']}
                  maw={360}
                />
                {values.strategy === 'auto' ? (
                  <NumberInput
                    label="Quality target"
                    description="Auto picks the cheapest model predicted to answer well with at least this probability (default 0.8)."
                    min={0}
                    max={1}
                    step={0.05}
                    decimalScale={2}
                    value={values.qualityTarget}
                    onChange={(value) => set('qualityTarget', typeof value === 'number' ? value : '')}
                    error={errors['settings.qualityTarget']}
                    maw={360}
                  />
                ) : null}
                {values.strategy === 'auto' ? (
                  <NumberInput
                    label="Exploration share"
                    description="The share of requests (0 to 1) that try a model the router is unsure of, so models with little feedback get some (default 0.05). 0: never explore."
                    min={0}
                    max={1}
                    step={0.01}
                    decimalScale={2}
                    value={values.exploration}
                    onChange={(value) => set('exploration', typeof value === 'number' ? value : '')}
                    error={errors['settings.exploration']}
                    maw={360}
                  />
                ) : null}
                {values.strategy === 'balanced' ? (
                  <div>
                    <Text size="sm" fw={500}>
                      Weights
                    </Text>
                    <Text size="xs" c="dimmed" mb="xs">
                      How much each criterion counts; normalised to sum 1. Empty: 0.25 each.
                    </Text>
                    <SimpleGrid cols={{ base: 2, sm: 4 }}>
                      {(Object.keys(emptyWeights) as (keyof Weights)[]).map((key) => (
                        <NumberInput
                          key={key}
                          label={key[0]?.toUpperCase() + key.slice(1)}
                          min={0}
                          step={0.05}
                          decimalScale={2}
                          value={values.weights[key]}
                          onChange={(value) => set('weights', { ...values.weights, [key]: typeof value === 'number' ? value : '' })}
                          error={errors[`settings.weights.${key}`] ?? (key === 'cost' ? errors['settings.weights'] : undefined)}
                        />
                      ))}
                    </SimpleGrid>
                  </div>
                ) : null}
              </Stack>
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
        <RouterRequestLogCard value={values.requestLog} onChange={(requestLog) => set('requestLog', requestLog)} error={errors['settings.requestLog'] ?? errors['settings.requestLog.retentionDays'] ?? errors['settings.requestLog.maxBodyBytes']} />
        <Group justify="flex-end">
          <Button variant="default" component={Link} to={router === undefined ? '/routers' : `/routers/${router.id}`}>
            Cancel
          </Button>
          <Button type="submit" loading={saving}>
            {router === undefined ? 'Create router' : 'Save changes'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function RouterNewPage() {
  return (
    <>
      <PageHeader title="New router" description="Choose the models this router may use and how it picks one for each request." />
      <RouterForm />
    </>
  );
}

export function RouterEditPage() {
  const workspace = useWorkspace();
  const { id = '' } = useParams();
  const router = useApi<Router>(workspacePath(workspace.id, `/routers/${encodeURIComponent(id)}`));
  const [key, setKey] = useState(0);
  useEffect(() => setKey((value) => value + 1), [router.data]);
  return (
    <>
      <PageHeader title={router.data === undefined ? 'Edit router' : `Edit ${router.data.name}`} />
      {router.error !== null ? <ErrorAlert error={router.error} onRetry={router.reload} title="Could not load the router" /> : router.data === undefined ? <LoadingRows rows={6} /> : <RouterForm key={key} router={router.data} />}
    </>
  );
}
