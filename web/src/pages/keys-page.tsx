import { ActionIcon, Badge, Button, Card, Group, Menu, Table, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDots, IconKey, IconPlus, IconRefresh, IconBan } from '@tabler/icons-react';
import { useState } from 'react';
import { workspacePath } from '../api/client';
import type { ApiKey, CreatedKey, KeyStatus, Router } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { formatDate, formatDateTime, formatRelative } from '../components/format';
import { EmptyPanel, ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { canWrite, useWorkspace } from '../session/session-context';
import { GenerateKeyModal, RevokeKeyModal, RotateKeyModal, ShownOnceModal } from './key-dialogs';

/**
 * The actions column stays in view at the right edge while the wide table scrolls
 * sideways: on a phone it would otherwise sit off-screen, past the dates.
 */
const STICKY_ACTIONS = { position: 'sticky', right: 0, zIndex: 1, background: 'var(--mantine-color-body)', boxShadow: '-6px 0 6px -6px rgba(0, 0, 0, 0.25)' } as const;

const STATUS_COLOR: Record<KeyStatus, string> = { active: 'teal', rotating: 'yellow', expired: 'gray', revoked: 'red' };

const FLAG_TEXT: Record<string, { label: string; hint: string }> = {
  old: { label: 'Over 90 days old', hint: 'Rotate keys about every 90 days.' },
  unused: { label: 'Unused 30 days', hint: 'Not used in the last 30 days: revoke it if nothing needs it.' },
};

/** Settings → API Keys: generate, list, rotate and revoke. */
export function KeysPage() {
  const workspace = useWorkspace();
  const keys = useApi<unknown>(workspacePath(workspace.id, '/keys'));
  const routers = useApi<unknown>(workspacePath(workspace.id, '/routers'));
  const [generating, setGenerating] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const routerList = listOf<Router>(routers.data);
  const routerName = (id: string) => routerList.find((router) => router.id === id)?.name ?? id;
  const list = listOf<ApiKey>(keys.data);
  const writable = canWrite(workspace);

  const generateButton = writable ? (
    <Button leftSection={<IconPlus size={16} />} onClick={() => setGenerating(true)}>
      Generate New API Key
    </Button>
  ) : undefined;

  return (
    <>
      <PageHeader title="API Keys" description="Keys let apps call your routers. Each is shown once, when it is generated." action={generateButton} />
      {keys.error !== null ? (
        <ErrorAlert error={keys.error} onRetry={keys.reload} title="Could not load keys" />
      ) : keys.data === undefined ? (
        <LoadingRows rows={4} />
      ) : list.length === 0 ? (
        <EmptyPanel icon={<IconKey size={28} />} title="No API keys yet" description="Generate a key for each place that calls your routers: production, staging, a teammate's laptop." action={generateButton} />
      ) : (
        <Card withBorder radius="md" p={0}>
          <Table.ScrollContainer minWidth={900}>
            <Table highlightOnHover verticalSpacing="sm" horizontalSpacing="md" data-testid="keys-table" style={{ whiteSpace: 'nowrap' }}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Routers</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Last used</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>Status</Table.Th>
                  {writable ? <Table.Th w={50} style={STICKY_ACTIONS} /> : null}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((key) => (
                  <Table.Tr key={key.id} data-testid="key-row" data-key-name={key.name} data-status={key.status} opacity={key.status === 'revoked' || key.status === 'expired' ? 0.6 : 1}>
                    <Table.Td>
                      <Text size="sm" fw={500}>
                        {key.name}
                      </Text>
                      {key.rpmLimit === null ? null : (
                        <Text size="xs" c="dimmed">
                          {key.rpmLimit} requests/min
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {key.prefix}…
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {key.routerIds === null ? (
                        <Text size="sm" c="dimmed">
                          All routers
                        </Text>
                      ) : (
                        <Group gap={4}>
                          {key.routerIds.map((id) => (
                            <Badge key={id} variant="outline" color="gray" tt="none">
                              {routerName(id)}
                            </Badge>
                          ))}
                        </Group>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Tooltip label={formatDateTime(key.createdAt)}>
                        <Text size="sm" span>
                          {formatDate(key.createdAt)}
                        </Text>
                      </Tooltip>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{formatRelative(key.lastUsedAt)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{key.expiresAt === null ? 'Never' : formatRelative(key.expiresAt)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        <Badge color={STATUS_COLOR[key.status]} variant="light" data-testid="key-status">
                          {key.status}
                        </Badge>
                        {key.flags.map((flag) => (
                          <Tooltip key={flag} label={FLAG_TEXT[flag]?.hint ?? flag}>
                            <Badge color="orange" variant="outline" data-testid="key-flag">
                              {FLAG_TEXT[flag]?.label ?? flag}
                            </Badge>
                          </Tooltip>
                        ))}
                      </Group>
                    </Table.Td>
                    {writable ? (
                      <Table.Td style={STICKY_ACTIONS}>
                        {key.status === 'active' || key.status === 'rotating' ? (
                          <Menu position="bottom-end" withinPortal>
                            <Menu.Target>
                              <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${key.name}`}>
                                <IconDots size={16} />
                              </ActionIcon>
                            </Menu.Target>
                            <Menu.Dropdown>
                              {key.status === 'active' ? (
                                <Menu.Item leftSection={<IconRefresh size={16} />} onClick={() => setRotating(key)}>
                                  Rotate
                                </Menu.Item>
                              ) : null}
                              <Menu.Item color="red" leftSection={<IconBan size={16} />} onClick={() => setRevoking(key)}>
                                Revoke
                              </Menu.Item>
                            </Menu.Dropdown>
                          </Menu>
                        ) : null}
                      </Table.Td>
                    ) : null}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <GenerateKeyModal
        opened={generating}
        onClose={() => setGenerating(false)}
        routers={routerList}
        onCreated={(key) => {
          setGenerating(false);
          setCreated(key);
          keys.reload();
        }}
      />
      <ShownOnceModal created={created} onClose={() => setCreated(null)} />
      <RevokeKeyModal
        apiKey={revoking}
        onClose={() => setRevoking(null)}
        onDone={() => {
          notifications.show({ color: 'teal', title: 'Key revoked', message: `${revoking?.name ?? 'The key'} no longer works.` });
          setRevoking(null);
          keys.reload();
        }}
      />
      <RotateKeyModal
        apiKey={rotating}
        onClose={() => setRotating(null)}
        onRotated={(key) => {
          setRotating(null);
          setCreated(key);
          keys.reload();
        }}
      />
    </>
  );
}
