import { BarChart } from '@mantine/charts';
import type { TrafficReport } from '../api/types';

/** A router's requests per hour, errors stacked on top. Loaded lazily: it pulls in recharts. */
export function TrafficChart({ hourly }: { readonly hourly: TrafficReport['hourly'] }) {
  const data = hourly.map((point) => ({
    hour: new Date(point.t).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }),
    ok: Math.max(0, point.requests - point.errors),
    errors: point.errors,
  }));
  return (
    <BarChart
      h={220}
      data={data}
      dataKey="hour"
      type="stacked"
      series={[
        { name: 'ok', label: 'Answered', color: 'blue.6' },
        { name: 'errors', label: 'Errors', color: 'red.6' },
      ]}
      tickLine="y"
      gridAxis="y"
      withLegend
      legendProps={{ verticalAlign: 'bottom' }}
      yAxisProps={{ allowDecimals: false }}
    />
  );
}
