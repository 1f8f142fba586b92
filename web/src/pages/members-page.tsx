import { ActionIcon, Alert, Button, Card, Group, Select, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconTrash, IconUsersGroup } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { ApiError, workspacePath } from '../api/client';
import type { Member, Role } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { formatDate } from '../components/format';
import { EmptyPanel, ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { CreateOrganizationButton } from '../layout/create-organization';
import { useSession, useWorkspace } from '../session/session-context';

const ROLES: readonly { value: Role; label: string; description: string }[] = [
  { value: 'viewer', label: 'Viewer', description: 'sees everything, uses the playground' },
  { value: 'admin', label: 'Admin', description: 'also creates routers and keys' },
  { value: 'owner', label: 'Owner', description: 'also manages members' },
];

const errorOf = (caught: unknown) => (caught instanceof ApiError ? caught : new ApiError(0, { message: String(caught), type: 'client_error', code: 'client_error' }));

function AddMemberForm({ onAdded }: { onAdded(): void }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setErrors({});
    try {
      await api.send('POST', workspacePath(workspace.id, '/members'), { email: email.trim(), role });
      notifications.show({ color: 'teal', title: 'Member added', message: `${email} is now ${role === 'admin' ? 'an' : 'a'} ${role}.` });
      setEmail('');
      onAdded();
    } catch (caught) {
      const error = errorOf(caught);
      setErrors({ [error.param ?? 'form']: error.message });
    } finally {
      setSaving(false);
    }
  };
  return (
    <Card withBorder radius="md" padding="lg">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack gap="sm">
          <Text fw={600}>Add a member</Text>
          {errors.form === undefined ? null : (
            <Alert color="red" role="alert">
              {errors.form}
            </Alert>
          )}
          <Group align="flex-start" gap="sm">
            <TextInput label="Email" description="They need a ModelPort account." type="email" required value={email} onChange={(event) => setEmail(event.currentTarget.value)} error={errors.email} style={{ flex: '1 1 240px' }} />
            <Select label="Role" description=" " data={ROLES.map((item) => ({ value: item.value, label: item.label }))} value={role} onChange={(value) => setRole((value ?? 'viewer') as Role)} allowDeselect={false} error={errors.role} w={150} />
            <Button type="submit" loading={saving} mt={{ base: 0, sm: 46 }}>
              Add member
            </Button>
          </Group>
          <Text size="xs" c="dimmed">
            {ROLES.map((item) => `${item.label}: ${item.description}`).join(' · ')}.
          </Text>
        </Stack>
      </form>
    </Card>
  );
}

/** Settings → Organisation members: who may see and change this workspace. */
export function MembersPage() {
  const workspace = useWorkspace();
  const { api, session, refresh } = useSession();
  const members = useApi<unknown>(workspacePath(workspace.id, '/members'));
  const list = listOf<Member>(members.data);
  const isOwner = workspace.role === 'owner';

  const change = async (member: Member, action: () => Promise<unknown>, done: string) => {
    try {
      await action();
      notifications.show({ color: 'teal', title: done, message: member.email });
      members.reload();
      if (member.userId === session?.user.id) await refresh();
    } catch (caught) {
      notifications.show({ color: 'red', title: 'Not changed', message: errorOf(caught).message });
    }
  };

  if (workspace.kind === 'personal') {
    return (
      <>
        <PageHeader title="Organisation members" />
        <EmptyPanel
          icon={<IconUsersGroup size={28} />}
          title="This is your personal workspace"
          description="Only you can see it. Create an organisation to share routers, keys and usage with your team, then switch to it with the workspace menu."
          action={<CreateOrganizationButton />}
        />
      </>
    );
  }

  return (
    <Stack gap="lg">
      <PageHeader title="Organisation members" description={`Who can see and change ${workspace.name}.`} />
      {isOwner ? <AddMemberForm onAdded={members.reload} /> : null}
      {members.error !== null ? (
        <ErrorAlert error={members.error} onRetry={members.reload} title="Could not load members" />
      ) : members.data === undefined ? (
        <LoadingRows rows={3} />
      ) : (
        <Card withBorder radius="md" p={0}>
          <Table.ScrollContainer minWidth={560}>
            <Table verticalSpacing="sm" horizontalSpacing="md">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>Added</Table.Th>
                  <Table.Th w={50} />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((member) => {
                  const self = member.userId === session?.user.id;
                  return (
                    <Table.Tr key={member.userId}>
                      <Table.Td>
                        {member.email}
                        {self ? (
                          <Text span c="dimmed" size="sm">
                            {' '}
                            (you)
                          </Text>
                        ) : null}
                      </Table.Td>
                      <Table.Td>
                        {isOwner ? (
                          <Select
                            aria-label={`Role of ${member.email}`}
                            size="xs"
                            w={120}
                            data={ROLES.map((item) => ({ value: item.value, label: item.label }))}
                            value={member.role}
                            allowDeselect={false}
                            onChange={(value) => value !== null && value !== member.role && void change(member, () => api.send('PATCH', workspacePath(workspace.id, `/members/${member.userId}`), { role: value }), 'Role changed')}
                          />
                        ) : (
                          <Text size="sm" tt="capitalize">
                            {member.role}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>{formatDate(member.addedAt ?? null)}</Table.Td>
                      <Table.Td>
                        {isOwner || self ? (
                          <Tooltip label={self ? 'Leave the organisation' : 'Remove member'}>
                            <ActionIcon variant="subtle" color="red" aria-label={self ? 'Leave the organisation' : `Remove ${member.email}`} onClick={() => void change(member, () => api.send('DELETE', workspacePath(workspace.id, `/members/${member.userId}`)), self ? 'You left' : 'Member removed')}>
                              <IconTrash size={16} />
                            </ActionIcon>
                          </Tooltip>
                        ) : null}
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
    </Stack>
  );
}
