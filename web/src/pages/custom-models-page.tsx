import { ActionIcon, Alert, Badge, Button, Card, Group, Menu, Modal, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconBox, IconDots, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { workspacePath } from '../api/client';
import type { CustomModel } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { formatPrice, formatTokens } from '../components/format';
import { EmptyPanel, ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { canWrite, useSession, useWorkspace } from '../session/session-context';
import { CustomModelModal } from './custom-model-dialog';
import { apiErrorOf } from './provider-dialogs';

function RemoveModelModal({ model, onClose, onDone }: { readonly model: CustomModel | null; onClose(): void; onDone(): void }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const remove = async () => {
    if (model === null) return;
    setSaving(true);
    try {
      await api.send('DELETE', workspacePath(workspace.id, `/custom-models/${encodeURIComponent(model.id)}`));
      setError(null);
      onDone();
    } catch (caught) {
      setError(apiErrorOf(caught).message);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Modal opened={model !== null} onClose={onClose} title={`Remove ${model?.id ?? 'model'}?`} centered>
      <Stack>
        <Text size="sm">A shipped model goes back to its shipped prices; routers that list a model you added skip it.</Text>
        {error === null ? null : (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red" loading={saving} onClick={() => void remove()}>
            Remove
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Settings → Models: models this workspace declared, and its own prices for shipped ones. */
export function CustomModelsPage() {
  const workspace = useWorkspace();
  const models = useApi<unknown>(workspacePath(workspace.id, '/custom-models'));
  const [editing, setEditing] = useState<CustomModel | null>(null);
  const [formOpen, setFormOpen] = useState(false);
  const [removing, setRemoving] = useState<CustomModel | null>(null);
  const writable = canWrite(workspace);
  const list = listOf<CustomModel>(models.data);

  const open = (model: CustomModel | null) => {
    setEditing(model);
    setFormOpen(true);
  };
  const addButton = writable ? (
    <Button leftSection={<IconPlus size={16} />} onClick={() => open(null)}>
      Add model
    </Button>
  ) : undefined;

  return (
    <>
      <PageHeader
        title="Models"
        description="Models your routers may list beyond the shipped catalog (of a preset or of your custom provider), and your own prices for shipped ones. Prices are USD per million tokens; cost and routing use them."
        action={addButton}
      />
      {models.error !== null ? (
        <ErrorAlert error={models.error} onRetry={models.reload} title="Could not load models" />
      ) : models.data === undefined ? (
        <LoadingRows rows={3} />
      ) : list.length === 0 ? (
        <EmptyPanel icon={<IconBox size={28} />} title="No models declared" description="Add a model of your custom provider, or set your negotiated price for a shipped one." action={addButton} />
      ) : (
        <Card withBorder radius="md" p={0}>
          <Table.ScrollContainer minWidth={900}>
            <Table highlightOnHover verticalSpacing="sm" horizontalSpacing="md" data-testid="custom-models-table" style={{ whiteSpace: 'nowrap' }}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Model</Table.Th>
                  <Table.Th>Kind</Table.Th>
                  <Table.Th ta="right">Input $/1M</Table.Th>
                  <Table.Th ta="right">Output $/1M</Table.Th>
                  <Table.Th ta="right">Cached $/1M</Table.Th>
                  <Table.Th ta="right">Context</Table.Th>
                  <Table.Th ta="right">Max output</Table.Th>
                  <Table.Th>Capabilities</Table.Th>
                  {writable ? <Table.Th w={50} /> : null}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((model) => (
                  <Table.Tr key={model.id} data-testid="custom-model-row" data-model-id={model.id}>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {model.id}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={model.kind === 'embedding' ? 'violet' : 'blue'}>
                        {model.kind}
                      </Badge>
                      {model.embedding === null ? null : (
                        <Text size="xs" c="dimmed">
                          {model.embedding.dimensions} dims{model.embedding.shortenable ? ', shortenable' : ''} · {model.embedding.space}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td ta="right">{formatPrice(model.inputPerMTok)}</Table.Td>
                    <Table.Td ta="right">{model.kind === 'embedding' ? '–' : formatPrice(model.outputPerMTok)}</Table.Td>
                    <Table.Td ta="right">{model.cachedInputPerMTok === null ? '–' : formatPrice(model.cachedInputPerMTok)}</Table.Td>
                    <Table.Td ta="right">{formatTokens(model.contextWindow)}</Table.Td>
                    <Table.Td ta="right">{model.kind === 'embedding' ? '–' : formatTokens(model.maxOutputTokens)}</Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        {model.capabilities.tools ? <Badge variant="outline" color="gray">tools</Badge> : null}
                        {model.capabilities.vision ? <Badge variant="outline" color="gray">vision</Badge> : null}
                      </Group>
                    </Table.Td>
                    {writable ? (
                      <Table.Td>
                        <Menu position="bottom-end" withinPortal>
                          <Menu.Target>
                            <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${model.id}`}>
                              <IconDots size={16} />
                            </ActionIcon>
                          </Menu.Target>
                          <Menu.Dropdown>
                            <Menu.Item leftSection={<IconPencil size={16} />} onClick={() => open(model)}>
                              Edit
                            </Menu.Item>
                            <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={() => setRemoving(model)}>
                              Remove
                            </Menu.Item>
                          </Menu.Dropdown>
                        </Menu>
                      </Table.Td>
                    ) : null}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <CustomModelModal
        opened={formOpen}
        editing={editing}
        onClose={() => setFormOpen(false)}
        onSaved={(saved) => {
          setFormOpen(false);
          notifications.show({
            color: 'teal',
            title: saved.replaced ? 'Model updated' : 'Model added',
            message: saved.overridesShipped ? `Your prices for ${saved.model.id} apply to your routers.` : `${saved.model.id} can now be listed in your routers.`,
          });
          models.reload();
        }}
      />
      <RemoveModelModal
        model={removing}
        onClose={() => setRemoving(null)}
        onDone={() => {
          notifications.show({ color: 'teal', title: 'Model removed', message: `${removing?.id ?? 'The model'} removed.` });
          setRemoving(null);
          models.reload();
        }}
      />
    </>
  );
}
