import { Group, NumberInput, Paper, SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import type { Router } from '../api/types';

/** A router's spend cap and rate limits as the form holds them; empty: none. */
export interface RouterLimitsValues {
  budgetUsd: number | '';
  budgetPeriod: 'day' | 'month';
  rpm: number | '';
  tpm: number | '';
}

export function limitsOf(router: Router | undefined): RouterLimitsValues {
  return {
    budgetUsd: router?.budget?.usd ?? '',
    budgetPeriod: router?.budget?.period ?? 'month',
    rpm: router?.rpmLimit ?? '',
    tpm: router?.tpmLimit ?? '',
  };
}

/**
 * The API's fields for them (`router create/update --budget-usd --budget-period --rpm --tpm`): on edit a cleared
 * field is `null`, which removes the limit; the server checks every value with the CLI's rules.
 */
export function limitsBody(values: RouterLimitsValues, router: Router | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (values.rpm !== '') body.rpmLimit = values.rpm;
  else if (router?.rpmLimit != null) body.rpmLimit = null;
  if (values.tpm !== '') body.tpmLimit = values.tpm;
  else if (router?.tpmLimit != null) body.tpmLimit = null;
  if (values.budgetUsd !== '') body.budget = { usd: values.budgetUsd, period: values.budgetPeriod };
  else if (router?.budget != null) body.budget = null;
  return body;
}

/** The form's "Budget and rate limits" section: what one router may spend and serve, across all keys. */
export function RouterLimitsFields({
  values,
  onChange,
  errors,
}: {
  readonly values: RouterLimitsValues;
  onChange(values: RouterLimitsValues): void;
  readonly errors: Readonly<Record<string, string>>;
}) {
  const set = <K extends keyof RouterLimitsValues>(key: K, value: RouterLimitsValues[K]) => onChange({ ...values, [key]: value });
  const budgetError = errors['budget.usd'] ?? errors.budget;
  return (
    <Paper withBorder p="lg" radius="md">
      <Stack gap="md">
        <div>
          <Text size="sm" fw={500}>
            Budget and rate limits
          </Text>
          <Text size="xs" c="dimmed">
            For every key of this workspace together. Over the budget, requests get 429 <code>insufficient_quota</code> until the period resets; over a rate limit, 429 <code>rate_limit_exceeded</code>. Empty: none.
          </Text>
        </div>
        <Group align="flex-end" gap="md">
          <NumberInput
            label="Budget (USD)"
            description="Spend cap per UTC calendar period."
            placeholder="No budget"
            min={0}
            decimalScale={6}
            step={1}
            value={values.budgetUsd}
            onChange={(value) => set('budgetUsd', typeof value === 'number' ? value : '')}
            error={budgetError}
            maw={240}
            data-testid="router-budget"
          />
          <SegmentedControl
            aria-label="Budget period"
            value={values.budgetPeriod}
            onChange={(value) => set('budgetPeriod', value === 'day' ? 'day' : 'month')}
            data={[
              { value: 'day', label: 'Per day' },
              { value: 'month', label: 'Per month' },
            ]}
          />
        </Group>
        {errors['budget.period'] === undefined ? null : (
          <Text c="red" size="sm" role="alert">
            {errors['budget.period']}
          </Text>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} maw={520}>
          <NumberInput
            label="Requests per minute"
            placeholder="No limit"
            min={1}
            step={10}
            allowDecimal={false}
            value={values.rpm}
            onChange={(value) => set('rpm', typeof value === 'number' ? value : '')}
            error={errors.rpmLimit}
            data-testid="router-rpm"
          />
          <NumberInput
            label="Tokens per minute"
            placeholder="No limit"
            min={1}
            step={1000}
            allowDecimal={false}
            value={values.tpm}
            onChange={(value) => set('tpm', typeof value === 'number' ? value : '')}
            error={errors.tpmLimit}
            data-testid="router-tpm"
          />
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}
