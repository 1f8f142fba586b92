import { Badge, Group } from '@mantine/core';
import type { RouterMeta } from '../api/types';
import { formatEnergy, formatGrams, formatMs, formatUsd } from '../components/format';

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/**
 * A routed answer's `_meta` as badges: the model the router picked, cost, latency, carbon, strategy and attempts.
 * Chat streams hand over whatever their last chunk carried, so every field is read defensively.
 */
export function MetaLine({ meta, testId = 'turn-meta' }: { readonly meta: RouterMeta | Readonly<Record<string, unknown>>; readonly testId?: string }) {
  const fields = meta as Readonly<Record<string, unknown>>;
  const attempts = Array.isArray(fields.attempts) ? fields.attempts.length : num(fields.attempts);
  // auto only: what the router's strongest model would have cost, and whether this request explored.
  const routing = typeof fields.routing === 'object' && fields.routing !== null ? (fields.routing as Readonly<Record<string, unknown>>) : {};
  const counterfactual = num(routing.counterfactualCostUsd);
  // The carbon estimate's inputs (docs/carbon.md): its energy is worth a badge of its own.
  const carbon = typeof fields.carbon === 'object' && fields.carbon !== null ? (fields.carbon as Readonly<Record<string, unknown>>) : {};
  const items: readonly [string, string | undefined][] = [
    ['Model', typeof fields.modelUsed === 'string' ? fields.modelUsed : undefined],
    ['Cost', num(fields.cost) === undefined ? undefined : formatUsd(num(fields.cost))],
    ['Latency', num(fields.latencyMs) === undefined ? undefined : formatMs(num(fields.latencyMs))],
    ['Carbon', num(fields.carbonGrams) === undefined ? undefined : formatGrams(num(fields.carbonGrams))],
    ['Energy', num(carbon.energyWh) === undefined ? undefined : formatEnergy(num(carbon.energyWh))],
    ['Strategy', typeof fields.routerDecision === 'string' ? fields.routerDecision : undefined],
    ['Attempts', attempts === undefined ? undefined : String(attempts)],
    ['Strongest model', counterfactual === undefined ? undefined : formatUsd(counterfactual)],
    ['Explored', routing.explored === true ? 'yes' : undefined],
  ];
  return (
    <Group gap={6} mt={6} data-testid={testId}>
      {items
        .filter((item): item is [string, string] => item[1] !== undefined)
        .map(([label, value]) => (
          <Badge key={label} variant="light" color={label === 'Model' ? 'blue' : 'gray'} tt="none" fw={500}>
            {label}: {value}
          </Badge>
        ))}
    </Group>
  );
}
