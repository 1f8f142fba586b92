import {
  ActionIcon,
  AppShell,
  Avatar,
  Badge,
  Burger,
  Center,
  Group,
  Loader,
  Menu,
  NavLink,
  ScrollArea,
  Select,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconBox,
  IconChartHistogram,
  IconKey,
  IconLogout,
  IconMessageChatbot,
  IconMoon,
  IconPlugConnected,
  IconRoute,
  IconRobot,
  IconSun,
  IconUsersGroup,
} from '@tabler/icons-react';
import { useEffect, type ReactNode } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { workspacePath } from '../api/client';
import { useApi } from '../api/use-api';
import { useSession } from '../session/session-context';
import { CreateOrganizationButton } from './create-organization';

interface NavItem {
  readonly to: string;
  readonly label: string;
  readonly icon: ReactNode;
  readonly section: 'main' | 'settings';
}

export function Logo() {
  return (
    <Group gap={8} wrap="nowrap">
      <svg width="26" height="26" viewBox="0 0 32 32" aria-hidden="true">
        <rect width="32" height="32" rx="8" fill="var(--mantine-color-blue-filled)" />
        <path d="M9 22V10l7 7 7-7v12" stroke="white" strokeWidth="3" fill="none" strokeLinejoin="round" />
      </svg>
      <Text fw={700} size="lg">
        ModelPort
      </Text>
    </Group>
  );
}

function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: true });
  const next = computed === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={`Switch to ${next} mode`}>
      <ActionIcon variant="default" size="lg" onClick={() => setColorScheme(next)} aria-label={`Switch to ${next} mode`}>
        {computed === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}

function WorkspaceSwitcher() {
  const { session, workspace, selectWorkspace } = useSession();
  if (session === null || session === undefined || workspace === null) return null;
  return (
    <Group gap="xs" wrap="nowrap">
      <Select
        aria-label="Workspace"
        data-testid="workspace-switcher"
        size="sm"
        w={{ base: 150, sm: 220 }}
        allowDeselect={false}
        value={workspace.id}
        onChange={(value) => value !== null && selectWorkspace(value)}
        data={[
          { group: 'Personal', items: session.workspaces.filter((item) => item.kind === 'personal').map((item) => ({ value: item.id, label: item.name })) },
          { group: 'Organisations', items: session.workspaces.filter((item) => item.kind === 'organization').map((item) => ({ value: item.id, label: item.name })) },
        ].filter((group) => group.items.length > 0)}
        comboboxProps={{ withinPortal: true }}
      />
      <CreateOrganizationButton />
    </Group>
  );
}

function UserMenu() {
  const { session, signOut } = useSession();
  const navigate = useNavigate();
  if (session === null || session === undefined) return null;
  return (
    <Menu position="bottom-end" withArrow>
      <Menu.Target>
        <UnstyledButton aria-label="Account menu">
          <Avatar radius="xl" size={34} color="blue">
            {session.user.email.slice(0, 2).toUpperCase()}
          </Avatar>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{session.user.email}</Menu.Label>
        <Menu.Item
          leftSection={<IconLogout size={16} />}
          onClick={() => {
            void signOut().finally(() => navigate('/signin'));
          }}
        >
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** The signed-in frame: header with workspace switcher, navbar, and the page. */
export function AppLayout() {
  const { session, workspace } = useSession();
  const [opened, { toggle, close }] = useDisclosure(false);
  const location = useLocation();
  // Agents arrive with another branch: the link shows only when the server knows the endpoint.
  const agents = useApi<unknown>(workspace === null ? null : workspacePath(workspace.id, '/agents'));
  const agentsAvailable = agents.data !== undefined || (agents.error !== null && agents.error.status !== 404 && agents.error.status !== 405);

  useEffect(() => close(), [location.pathname, close]);

  if (session === undefined) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (session === null) return <Navigate to="/signin" replace state={{ from: location.pathname }} />;

  const items: readonly NavItem[] = [
    { to: '/routers', label: 'Routers', icon: <IconRoute size={18} />, section: 'main' },
    ...(agentsAvailable ? [{ to: '/agents', label: 'Agents', icon: <IconRobot size={18} />, section: 'main' as const }] : []),
    { to: '/usage', label: 'Usage', icon: <IconChartHistogram size={18} />, section: 'main' },
    { to: '/playground', label: 'Playground', icon: <IconMessageChatbot size={18} />, section: 'main' },
    { to: '/settings/keys', label: 'API Keys', icon: <IconKey size={18} />, section: 'settings' },
    { to: '/settings/members', label: 'Organisation members', icon: <IconUsersGroup size={18} />, section: 'settings' },
    { to: '/settings/providers', label: 'Providers', icon: <IconPlugConnected size={18} />, section: 'settings' },
    { to: '/settings/models', label: 'Models', icon: <IconBox size={18} />, section: 'settings' },
  ];
  const link = (item: NavItem) => (
    <NavLink
      key={item.to}
      component={Link}
      to={item.to}
      label={item.label}
      leftSection={item.icon}
      active={location.pathname === item.to || location.pathname.startsWith(`${item.to}/`)}
      variant="light"
      style={{ borderRadius: 'var(--mantine-radius-sm)' }}
    />
  );

  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 250, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding={{ base: 'sm', sm: 'lg' }}>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Link to="/routers" style={{ color: 'inherit', textDecoration: 'none' }} aria-label="ModelPort home">
              <Logo />
            </Link>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Group visibleFrom="sm" gap="sm" wrap="nowrap">
              <WorkspaceSwitcher />
            </Group>
            <ColorSchemeToggle />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Main navigation">
        <AppShell.Section hiddenFrom="sm" mb="sm">
          <WorkspaceSwitcher />
        </AppShell.Section>
        <AppShell.Section grow component={ScrollArea}>
          <Stack gap={2}>{items.filter((item) => item.section === 'main').map(link)}</Stack>
          <Text size="xs" fw={600} c="dimmed" tt="uppercase" mt="lg" mb={6} px="sm">
            Settings
          </Text>
          <Stack gap={2}>{items.filter((item) => item.section === 'settings').map(link)}</Stack>
        </AppShell.Section>
        {workspace === null ? null : (
          <AppShell.Section>
            <Group gap={6} px="sm" py="xs">
              <Text size="xs" c="dimmed" truncate>
                {workspace.name}
              </Text>
              <Badge size="xs" variant="light">
                {workspace.role}
              </Badge>
            </Group>
          </AppShell.Section>
        )}
      </AppShell.Navbar>
      <AppShell.Main>
        <div style={{ maxWidth: 1200, margin: '0 auto' }}>
          <Outlet />
        </div>
      </AppShell.Main>
    </AppShell>
  );
}
