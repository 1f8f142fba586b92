import { Alert, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconPlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError, workspacePath } from '../api/client';
import type { Agent, CatalogModel, Router } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { useSession, useWorkspace } from '../session/session-context';
import { definitionOf, emptyStep, formValuesOf, LIMIT_FIELDS, movedToEnd, readersOfLastStep, stepParam, withNewStep, type AgentFormValues, type StepValues } from './agents-form-values';
import { StepEditor } from './agents-step-editor';

/** The agent form; `agent` undefined creates one, otherwise saving makes a new version. */
function AgentForm({ agent }: { readonly agent?: Agent }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const navigate = useNavigate();
  const routers = useApi<unknown>(workspacePath(workspace.id, '/routers'));
  const catalog = useApi<unknown>(`/catalog?workspace=${encodeURIComponent(workspace.id)}`);
  const [values, setValues] = useState<AgentFormValues>(() => formValuesOf(agent?.definition));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);

  const setSteps = (steps: StepValues[], keepErrors = true) => {
    setValues((current) => ({ ...current, steps }));
    // Indices in the server's `param` no longer match once steps move.
    if (!keepErrors) setErrors((current) => Object.fromEntries(Object.entries(current).filter(([key]) => stepParam(key) === undefined)));
  };
  const move = (index: number, offset: -1 | 1) => {
    const steps = [...values.steps];
    const [step] = steps.splice(index, 1);
    if (step === undefined) return;
    steps.splice(index + offset, 0, step);
    setSteps(steps, false);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setErrors({});
    try {
      const body = definitionOf(values);
      const saved =
        agent === undefined
          ? await api.send<Agent>('POST', workspacePath(workspace.id, '/agents'), body)
          : await api.send<Agent>('PUT', workspacePath(workspace.id, `/agents/${encodeURIComponent(agent.name)}`), body);
      notifications.show({ color: 'teal', title: agent === undefined ? 'Agent created' : `Saved as version ${saved.version}`, message: saved.model });
      navigate(`/agents/${encodeURIComponent(saved.name)}`);
    } catch (caught) {
      const error = caught instanceof ApiError ? caught : new ApiError(0, { message: String(caught), type: 'client_error', code: 'client_error' });
      const param = error.param ?? 'form';
      const known = param === 'name' || param === 'description' || param.startsWith('limits.') || stepParam(param) !== undefined;
      // The field is named by where the message shows: "Invalid agent definition: steps[1].prompt: …" → "…".
      const message = known ? error.message.replace(/^Invalid agent definition: /, '').replace(`${param}: `, '') : error.message;
      setErrors({ [known ? param : 'form']: message });
    } finally {
      setSaving(false);
    }
  };

  if (routers.error !== null) return <ErrorAlert error={routers.error} onRetry={routers.reload} title="Could not load the routers" />;
  if (catalog.error !== null) return <ErrorAlert error={catalog.error} onRetry={catalog.reload} title="Could not load the model catalog" />;
  if (routers.data === undefined || catalog.data === undefined) return <LoadingRows rows={6} />;
  const routerList = listOf<Router>(routers.data);
  const models = listOf<CatalogModel>(catalog.data).filter((model) => model.retired !== true);
  const limitsError = Object.entries(errors).find(([key]) => key === 'limits')?.[1];
  const lastName = values.steps.at(-1)?.name.trim() ?? '';
  const readersOfLast = readersOfLastStep(values.steps);

  const errorsOfStep = (index: number): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [param, message] of Object.entries(errors)) {
      const at = stepParam(param);
      if (at?.index === index) out[at.field] = message;
    }
    return out;
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label="Agent definition">
      <Stack gap="lg">
        {errors.form === undefined ? null : (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
            {errors.form}
          </Alert>
        )}
        <Paper withBorder p="lg" radius="md">
          <Stack>
            <TextInput
              label="Name"
              description={agent === undefined ? 'A slug; clients call it as model agent:<name>. It cannot be changed later.' : 'An agent cannot be renamed.'}
              required
              maxLength={64}
              disabled={agent !== undefined}
              value={values.name}
              onChange={(event) => setValues({ ...values, name: event.currentTarget.value })}
              error={errors.name}
            />
            <Textarea label="Description" autosize minRows={1} maxRows={4} maxLength={2000} value={values.description} onChange={(event) => setValues({ ...values, description: event.currentTarget.value })} error={errors.description} />
          </Stack>
        </Paper>
        <Stack gap="sm">
          <Group justify="space-between">
            <div>
              <Title order={4}>Steps</Title>
              <Text size="sm" c="dimmed">
                A step runs once the steps it needs or reads have finished; the last step gives the answer, so new steps go before it.
              </Text>
            </div>
            <Button variant="light" leftSection={<IconPlus size={16} />} onClick={() => setSteps(withNewStep(values.steps, emptyStep()), false)}>
              Add step
            </Button>
          </Group>
          {readersOfLast.map((reader) => (
            <Alert key={reader.key} color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} role="status" title={`Step "${reader.name.trim()}" reads the answer step`}>
              <Stack gap="xs" align="flex-start">
                <Text size="sm">
                  "{lastName}" is the last step: it gives the answer and runs after every other step, so "{reader.name.trim()}" cannot read it. Move "{reader.name.trim()}" to the end to make it the answer step.
                </Text>
                <Button size="xs" variant="light" color="yellow" onClick={() => setSteps(movedToEnd(values.steps, reader.key), false)}>
                  Move "{reader.name.trim()}" to the end
                </Button>
              </Stack>
            </Alert>
          ))}
          {errors.steps === undefined ? null : (
            <Text c="red" size="sm" role="alert">
              {errors.steps}
            </Text>
          )}
          {values.steps.map((step, index) => (
            <StepEditor
              key={step.key}
              step={step}
              index={index}
              count={values.steps.length}
              otherNames={[...new Set(values.steps.filter((other) => other.key !== step.key && other.name.trim() !== '').map((other) => other.name.trim()))]}
              routers={routerList}
              models={models}
              errors={errorsOfStep(index)}
              onChange={(next) => setSteps(values.steps.map((other) => (other.key === step.key ? next : other)))}
              onMove={(offset) => move(index, offset)}
              onRemove={() => setSteps(values.steps.filter((other) => other.key !== step.key), false)}
            />
          ))}
        </Stack>
        <Paper withBorder p="lg" radius="md">
          <Title order={4}>Limits</Title>
          <Text size="sm" c="dimmed" mb="sm">
            Optional: lower the server's limits for this agent. Empty: the server's.
          </Text>
          {limitsError === undefined ? null : (
            <Text c="red" size="sm" role="alert">
              {limitsError}
            </Text>
          )}
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
            {LIMIT_FIELDS.map((field) => (
              <NumberInput
                key={field.key}
                label={field.label}
                description={field.description}
                min={field.decimals === 0 ? 1 : 0}
                allowDecimal={field.decimals > 0}
                decimalScale={field.decimals}
                value={values.limits[field.key]}
                onChange={(value) => setValues({ ...values, limits: { ...values.limits, [field.key]: typeof value === 'number' ? value : '' } })}
                error={errors[`limits.${field.key}`]}
              />
            ))}
          </SimpleGrid>
        </Paper>
        <Group justify="flex-end">
          <Button variant="default" component={Link} to={agent === undefined ? '/agents' : `/agents/${encodeURIComponent(agent.name)}`}>
            Cancel
          </Button>
          <Button type="submit" loading={saving}>
            {agent === undefined ? 'Create agent' : 'Save new version'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function AgentNewPage() {
  return (
    <>
      <PageHeader title="New agent" description="A workflow of model calls, run by sending model agent:<name> to the gateway." />
      <AgentForm />
    </>
  );
}

export function AgentEditPage() {
  const workspace = useWorkspace();
  const { name = '' } = useParams();
  const agent = useApi<Agent>(workspacePath(workspace.id, `/agents/${encodeURIComponent(name)}`));
  return (
    <>
      <PageHeader title={`Edit agent:${name}`} description={agent.data === undefined ? undefined : `Saving makes version ${agent.data.version + 1}.`} />
      {agent.error !== null ? (
        <ErrorAlert error={agent.error} onRetry={agent.reload} title="Could not load the agent" />
      ) : agent.data === undefined ? (
        <LoadingRows rows={6} />
      ) : (
        <AgentForm key={`${agent.data.name}@${agent.data.version}`} agent={agent.data} />
      )}
    </>
  );
}
