import { Button, Group, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { RequestsPage } from '../api/types';
import { useApi } from '../api/use-api';
import { ErrorAlert, LoadingRows } from './page-state';
import { RequestTable } from './request-table';

export interface RequestLogPagerProps {
  /** The request log's URL with its filters and limit, without a cursor. */
  readonly url: string;
  readonly emptyText: string;
  readonly canRate: boolean;
}

/**
 * The request log a page at a time, newest first: "Older" follows the server's cursor (keyset over the raw records),
 * "Newer" goes back. Where the records run out, it says from when they have expired.
 */
export function RequestLogPager({ url, emptyText, canRate }: RequestLogPagerProps) {
  const [cursors, setCursors] = useState<readonly string[]>([]);
  // New filters or a refresh start again from the newest.
  useEffect(() => setCursors([]), [url]);
  const cursor = cursors[cursors.length - 1];
  const page = useApi<RequestsPage>(cursor === undefined ? url : `${url}&before=${encodeURIComponent(cursor)}`);
  if (page.error !== null) return <ErrorAlert error={page.error} onRetry={page.reload} title="Could not load requests" />;
  if (page.data === undefined) return <LoadingRows rows={3} height={32} />;
  const { requests, nextBefore, expiredBefore } = page.data;
  const expired = `Requests before ${new Date(expiredBefore).toLocaleString()} have expired: this deployment keeps each request's record for a limited time (usage totals and charts keep counting them).`;
  return (
    <>
      {requests.length === 0 ? (
        <Text c="dimmed" size="sm" ta="center" py="md">
          {emptyText}
        </Text>
      ) : (
        <RequestTable requests={requests} canRate={canRate} />
      )}
      <Group justify="space-between" mt="sm" wrap="wrap">
        <Text c="dimmed" size="xs" data-testid="requests-expired-note">
          {nextBefore === null ? expired : ''}
        </Text>
        <Group gap="xs">
          <Button variant="default" size="xs" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </Button>
          <Button variant="default" size="xs" disabled={nextBefore === null} onClick={() => nextBefore !== null && setCursors([...cursors, nextBefore])} data-testid="requests-older">
            Older
          </Button>
        </Group>
      </Group>
    </>
  );
}
