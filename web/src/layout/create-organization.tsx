import { ActionIcon, Button, Modal, Stack, TextInput, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconPlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import type { Workspace } from '../api/types';
import { useSession } from '../session/session-context';

/** "+" beside the workspace switcher: a new organisation, which becomes the current workspace. */
export function CreateOrganizationButton() {
  const { api, refresh, selectWorkspace } = useSession();
  const [opened, { open, close }] = useDisclosure(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const created = await api.send<Workspace | { organization: Workspace }>('POST', '/organizations', { name });
      const workspace = 'organization' in created ? created.organization : created;
      await refresh();
      selectWorkspace(workspace.id);
      notifications.show({ color: 'teal', title: 'Organisation created', message: `${name} is now your current workspace.` });
      setName('');
      close();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <Tooltip label="New organisation">
        <ActionIcon variant="default" size="lg" onClick={open} aria-label="New organisation">
          <IconPlus size={16} />
        </ActionIcon>
      </Tooltip>
      <Modal opened={opened} onClose={close} title="New organisation" centered>
        <form onSubmit={(event) => void submit(event)}>
          <Stack>
            <TextInput label="Name" description="Your team or company. You become its owner and can invite members." required data-autofocus value={name} onChange={(event) => setName(event.currentTarget.value)} error={error} />
            <Button type="submit" loading={saving}>
              Create organisation
            </Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
