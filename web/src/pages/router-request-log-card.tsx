import { Card, NumberInput, SimpleGrid, Stack, Switch, Text, Title } from '@mantine/core';
import type { Router } from '../api/types';

/** Body logging as the router form edits it; sizes in KiB. */
export interface RequestLogValues {
  bodies: boolean;
  retentionDays: number | '';
  maxBodyKib: number | '';
}

export function requestLogOf(router: Router | undefined): RequestLogValues {
  const log = router?.settings?.requestLog;
  return { bodies: log?.bodies ?? false, retentionDays: log?.retentionDays ?? '', maxBodyKib: log?.maxBodyBytes === undefined ? '' : Math.round(log.maxBodyBytes / 1024) };
}

/** The `requestLog` setting to send: off on edit is `null` (back to the default, and the kept bodies deleted). */
export function requestLogSetting(values: RequestLogValues, forPatch: boolean): Record<string, unknown> | null | undefined {
  if (!values.bodies) return forPatch ? null : undefined;
  return {
    bodies: true,
    ...(values.retentionDays === '' ? {} : { retentionDays: values.retentionDays }),
    ...(values.maxBodyKib === '' ? {} : { maxBodyBytes: values.maxBodyKib * 1024 }),
  };
}

/** The router's request log: whether bodies are kept, for how long and how much of each. */
export function RouterRequestLogCard({ value, onChange, error }: { readonly value: RequestLogValues; readonly onChange: (value: RequestLogValues) => void; readonly error?: string | undefined }) {
  return (
    <Card withBorder radius="md" padding="lg" data-testid="request-log-settings">
      <Stack gap="sm">
        <Title order={4}>Request log</Title>
        <Text size="sm" c="dimmed">
          Every request's routing and attempts are kept with its usage. With body logging on, the request and the answer are kept too (API keys and secrets
          redacted), then deleted after the retention period. Turning it off deletes the bodies kept so far.
        </Text>
        <Switch label="Keep request and response bodies" checked={value.bodies} onChange={(event) => onChange({ ...value, bodies: event.currentTarget.checked })} error={error} />
        {value.bodies ? (
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NumberInput
              label="Retention (days)"
              description="1 to 90; empty: 7"
              min={1}
              max={90}
              allowDecimal={false}
              value={value.retentionDays}
              onChange={(next) => onChange({ ...value, retentionDays: typeof next === 'number' ? next : '' })}
            />
            <NumberInput
              label="Maximum size of each body (KiB)"
              description="Up to 1024; empty: 64"
              min={1}
              max={1024}
              allowDecimal={false}
              value={value.maxBodyKib}
              onChange={(next) => onChange({ ...value, maxBodyKib: typeof next === 'number' ? next : '' })}
            />
          </SimpleGrid>
        ) : null}
      </Stack>
    </Card>
  );
}
