import { Button, Select, Stack } from '@mantine/core';
import { IconRoute } from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router-dom';
import { workspacePath } from '../api/client';
import type { Router } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { EmptyPanel, ErrorAlert, LoadingRows, PageHeader } from '../components/page-state';
import { useWorkspace } from '../session/session-context';
import { ChatPlayground } from './playground-chat';
import { EmbeddingPlayground } from './playground-embeddings';

const DESCRIPTIONS = {
  chat: 'Chat through a router. Each answer shows the model it picked, its cost, latency and carbon.',
  embedding: 'Embed texts through a router. Each call shows every vector, how alike the texts are, and the model it picked, its cost, latency and carbon.',
} as const;

/** The router picker's choices: grouped by kind when the workspace has both. */
function routerOptions(routers: readonly Router[]) {
  const option = (router: Router) => ({ value: router.id, label: router.name });
  const chat = routers.filter((router) => router.kind !== 'embedding').map(option);
  const embedding = routers.filter((router) => router.kind === 'embedding').map(option);
  if (chat.length === 0 || embedding.length === 0) return routers.map(option);
  return [
    { group: 'Chat', items: chat },
    { group: 'Embeddings', items: embedding },
  ];
}

/** Try a router: a chat router in a conversation, an embedding router on texts. The router's kind picks the mode. */
export function PlaygroundPage() {
  const workspace = useWorkspace();
  const [params, setParams] = useSearchParams();
  const routers = useApi<unknown>(workspacePath(workspace.id, '/routers'));
  const list = listOf<Router>(routers.data);
  // Without a choice, a chat router if there is one: the playground opened as a chat before it knew embeddings.
  const routerId = params.get('router') ?? (list.find((router) => router.kind !== 'embedding') ?? list[0])?.id ?? null;
  const router = list.find((candidate) => candidate.id === routerId);

  if (routers.error !== null) return <ErrorAlert error={routers.error} onRetry={routers.reload} title="Could not load routers" />;
  if (routers.data === undefined) return <LoadingRows rows={4} />;
  if (list.length === 0 || routerId === null) {
    return (
      <>
        <PageHeader title="Playground" />
        <EmptyPanel
          icon={<IconRoute size={28} />}
          title="Create a router first"
          description="The playground sends your messages or texts through one of your routers, so you can see which model it picks and what it costs."
          action={
            <Button component={Link} to="/routers/new">
              New router
            </Button>
          }
        />
      </>
    );
  }

  const kind = router?.kind === 'embedding' ? 'embedding' : 'chat';
  const routerSelect = (
    <Select
      label="Router"
      data={routerOptions(list)}
      value={routerId}
      onChange={(value) => value !== null && setParams({ router: value })}
      allowDeselect={false}
      w={{ base: '100%', sm: 260 }}
      data-testid="playground-router"
    />
  );
  return (
    <Stack gap="md">
      <PageHeader title="Playground" description={`${DESCRIPTIONS[kind]} Requests count in Usage as “Dashboard playground”.`} />
      {router !== undefined && kind === 'embedding' ? <EmbeddingPlayground router={router} routerSelect={routerSelect} /> : <ChatPlayground routerId={routerId} routerSelect={routerSelect} />}
    </Stack>
  );
}
