import { AreaChart } from '@mantine/charts';
import type { SavingsReport } from '../api/types';
import { formatUsd } from './format';

/** An `auto` router's spend per bucket against always using its strongest model. Loaded lazily: it pulls in recharts. */
export function SavingsChart({ report }: { readonly report: SavingsReport }) {
  const data = report.points.map((point) => {
    const date = new Date(point.t);
    return {
      time: report.bucket === 'hour' ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' }),
      costUsd: point.costUsd,
      counterfactualCostUsd: point.counterfactualCostUsd,
    };
  });
  return (
    <AreaChart
      h={220}
      data={data}
      dataKey="time"
      series={[
        { name: 'counterfactualCostUsd', label: 'Always the strongest model', color: 'gray.5' },
        { name: 'costUsd', label: 'This router', color: 'teal.6' },
      ]}
      curveType="monotone"
      valueFormatter={formatUsd}
      gridAxis="y"
      withDots={false}
      withLegend
      legendProps={{ verticalAlign: 'bottom' }}
    />
  );
}
