import { Badge, Button, Card, Group, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCircleCheck, IconCircleX, IconPlugConnected, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { workspacePath } from '../api/client';
import type { ProviderCredential, ProviderList, ProviderTest } from '../api/types';
import { useApi } from '../api/use-api';
import { formatDate, formatDateTime, formatMs } from '../components/format';
import { EmptyPanel, ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { canWrite, useSession, useWorkspace } from '../session/session-context';
import { AddProviderModal, RemoveProviderModal, apiErrorOf } from './provider-dialogs';

type TestState = { readonly running: true } | { readonly running: false; readonly result: ProviderTest } | { readonly running: false; readonly error: string };

/** `…abcd`, or whether a key is set at all (short keys show no tail). */
function keyText(credential: ProviderCredential): string {
  if (!credential.hasKey) return 'none';
  return credential.keyHint === null ? 'set' : `…${credential.keyHint}`;
}

function TestOutcome({ state }: { readonly state: TestState | undefined }) {
  if (state === undefined || state.running) return null;
  if ('error' in state) {
    return (
      <Text size="xs" c="red" data-testid="provider-test-result" data-ok="false">
        {state.error}
      </Text>
    );
  }
  const { result } = state;
  return (
    <Group gap={4} wrap="nowrap" data-testid="provider-test-result" data-ok={String(result.ok)}>
      {result.ok ? <IconCircleCheck size={16} color="var(--mantine-color-teal-6)" /> : <IconCircleX size={16} color="var(--mantine-color-red-6)" />}
      <Text size="xs" c={result.ok ? 'teal' : 'red'} style={{ whiteSpace: 'normal' }}>
        {result.ok ? `ok: ${result.message} in ${formatMs(result.latencyMs)}` : result.message}
      </Text>
    </Group>
  );
}

/** Settings → Providers: the workspace's own provider keys (bring your own key), tested live. */
export function ProvidersPage() {
  const workspace = useWorkspace();
  const { api } = useSession();
  const providers = useApi<ProviderList>(workspacePath(workspace.id, '/providers'));
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<ProviderCredential | null>(null);
  const [tests, setTests] = useState<Record<string, TestState>>({});
  const [testModels, setTestModels] = useState<Record<string, string>>({});
  const writable = canWrite(workspace);
  const list = providers.data?.providers ?? [];
  const presets = providers.data?.presets ?? [];

  const test = async (provider: string) => {
    setTests((current) => ({ ...current, [provider]: { running: true } }));
    const model = testModels[provider]?.trim() ?? '';
    try {
      const result = await api.send<ProviderTest>('POST', workspacePath(workspace.id, `/providers/${encodeURIComponent(provider)}/test`), model === '' ? {} : { model });
      setTests((current) => ({ ...current, [provider]: { running: false, result } }));
    } catch (caught) {
      setTests((current) => ({ ...current, [provider]: { running: false, error: apiErrorOf(caught).message } }));
    }
  };

  const addButton = writable ? (
    <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
      Add provider key
    </Button>
  ) : undefined;

  return (
    <>
      <PageHeader
        title="Providers"
        description="Your own keys for model providers: your routers call them with these instead of the server's. Keys are stored encrypted and never shown again."
        action={addButton}
      />
      {providers.error !== null ? (
        <ErrorAlert error={providers.error} onRetry={providers.reload} title="Could not load providers" />
      ) : providers.data === undefined ? (
        <LoadingRows rows={3} />
      ) : list.length === 0 ? (
        <EmptyPanel
          icon={<IconPlugConnected size={28} />}
          title="No provider keys yet"
          description="Add your OpenAI, Anthropic, Groq… key, or an OpenAI-compatible server of your own, to pay the provider directly."
          action={addButton}
        />
      ) : (
        <Card withBorder radius="md" p={0}>
          <Table.ScrollContainer minWidth={860}>
            <Table verticalSpacing="sm" horizontalSpacing="md" data-testid="providers-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Provider</Table.Th>
                  <Table.Th>Base URL</Table.Th>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Updated</Table.Th>
                  {writable ? <Table.Th>Check</Table.Th> : null}
                  {writable ? <Table.Th w={50} /> : null}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((credential) => {
                  const state = tests[credential.provider];
                  return (
                    <Table.Tr key={credential.provider} data-testid="provider-row" data-provider={credential.provider}>
                      <Table.Td>
                        <Group gap={6} wrap="nowrap">
                          <Text size="sm" fw={500}>
                            {presets.find((preset) => preset.name === credential.provider)?.label ?? credential.provider}
                          </Text>
                          <Badge size="xs" variant="light" color={credential.kind === 'custom' ? 'grape' : 'blue'}>
                            {credential.kind}
                          </Badge>
                        </Group>
                      </Table.Td>
                      <Table.Td>
                        {credential.baseUrl === null ? (
                          <Text size="sm" c="dimmed">
                            Provider default
                          </Text>
                        ) : (
                          <Text size="sm" ff="monospace">
                            {credential.baseUrl}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm" ff="monospace" data-testid="provider-key">
                          {keyText(credential)}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Tooltip label={formatDateTime(credential.updatedAt)}>
                          <Text size="sm" span>
                            {formatDate(credential.updatedAt)}
                          </Text>
                        </Tooltip>
                      </Table.Td>
                      {writable ? (
                        <Table.Td maw={360}>
                          <Stack gap={4}>
                            <Group gap={6} wrap="nowrap">
                              <TextInput
                                size="xs"
                                w={170}
                                aria-label={`Model to ping for ${credential.provider}`}
                                placeholder={credential.kind === 'custom' ? 'model (optional)' : 'cheapest model'}
                                value={testModels[credential.provider] ?? ''}
                                onChange={(event) => {
                                  const value = event.currentTarget.value;
                                  setTestModels((current) => ({ ...current, [credential.provider]: value }));
                                }}
                              />
                              <Button size="xs" variant="light" loading={state?.running === true} onClick={() => void test(credential.provider)}>
                                Test
                              </Button>
                            </Group>
                            <TestOutcome state={state} />
                          </Stack>
                        </Table.Td>
                      ) : null}
                      {writable ? (
                        <Table.Td>
                          <Tooltip label="Remove">
                            <Button variant="subtle" color="red" size="xs" px={6} aria-label={`Remove ${credential.provider}`} onClick={() => setRemoving(credential)}>
                              <IconTrash size={16} />
                            </Button>
                          </Tooltip>
                        </Table.Td>
                      ) : null}
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <Text size="xs" c="dimmed" mt="sm">
        A test makes one real call (a one-token chat, or listing a custom server's models) and may cost a token.
      </Text>
      <AddProviderModal
        opened={adding}
        onClose={() => setAdding(false)}
        presets={presets}
        onSaved={(saved) => {
          setAdding(false);
          setTests((current) => ({ ...Object.fromEntries(Object.entries(current).filter(([name]) => name !== saved.provider.provider)) }));
          notifications.show({
            color: 'teal',
            title: saved.replaced ? 'Key replaced' : 'Key saved',
            message: `${saved.provider.provider}: key ${keyText(saved.provider)}. It will not be shown again.`,
          });
          providers.reload();
        }}
      />
      <RemoveProviderModal
        credential={removing}
        onClose={() => setRemoving(null)}
        onDone={(modelsRemoved) => {
          notifications.show({
            color: 'teal',
            title: 'Provider removed',
            message: `${removing?.provider ?? 'The provider'}${modelsRemoved === 0 ? '' : ` and ${modelsRemoved} declared model${modelsRemoved === 1 ? '' : 's'}`} removed.`,
          });
          setRemoving(null);
          providers.reload();
        }}
      />
    </>
  );
}
