import { Alert, Button, Card, Group, NumberInput, Paper, Stack, Text, Textarea } from '@mantine/core';
import { IconVector } from '@tabler/icons-react';
import { useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { ApiError, workspacePath } from '../api/client';
import type { CatalogModel, PlaygroundEmbeddings, PlaygroundEmbeddingsRequest, Router } from '../api/types';
import { listOf, useApi } from '../api/use-api';
import { useSession, useWorkspace } from '../session/session-context';
import { EmbeddingResults } from './playground-embedding-results';

interface EmbeddingRun {
  readonly inputs: readonly string[];
  readonly answer: PlaygroundEmbeddings;
}

/** One input per line; blank lines are none (the API refuses an empty input). */
const linesOf = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** What the dimensions field can ask of the router's models (one vector space, so one length). */
function dimensionsHint(embedding: CatalogModel['embedding']): string {
  if (embedding === undefined) return "Empty: the model's own length.";
  if (!embedding.shortenable) return `${embedding.dimensions} only: this model cannot shorten its vectors.`;
  return `Empty: ${embedding.dimensions}. Shorter on request, 1 to ${embedding.dimensions}.`;
}

/** Embed texts through an embedding router: each input's vector, how alike they are, and the call's `_meta`. */
export function EmbeddingPlayground({ router, routerSelect }: { readonly router: Router; readonly routerSelect: ReactNode }) {
  const workspace = useWorkspace();
  const { api } = useSession();
  const catalog = useApi<unknown>(`/catalog?workspace=${encodeURIComponent(workspace.id)}`);
  const [text, setText] = useState('');
  const [dimensions, setDimensions] = useState<number | ''>('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [run, setRun] = useState<EmbeddingRun | null>(null);
  const inputs = linesOf(text);
  const embedding = listOf<CatalogModel>(catalog.data).find((model) => router.models.includes(model.id))?.embedding;

  const embed = async (event?: FormEvent) => {
    event?.preventDefault();
    if (inputs.length === 0 || busy) return;
    const body: PlaygroundEmbeddingsRequest = { model: router.id, input: inputs, ...(dimensions === '' ? {} : { dimensions }) };
    setBusy(true);
    setError(null);
    try {
      const answer = await api.send<PlaygroundEmbeddings>('POST', workspacePath(workspace.id, '/playground/embeddings'), body);
      setRun({ inputs, answer });
    } catch (caught) {
      setRun(null);
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void embed();
    }
  };

  return (
    <>
      <Card withBorder radius="md" padding="md" component="form" onSubmit={(event: FormEvent) => void embed(event)}>
        <Group align="flex-start" gap="md">
          {routerSelect}
          <NumberInput
            label="Dimensions"
            description={dimensionsHint(embedding)}
            placeholder="Model default"
            min={1}
            allowDecimal={false}
            allowNegative={false}
            value={dimensions}
            onChange={(value) => setDimensions(typeof value === 'number' ? value : '')}
            w={{ base: '100%', sm: 300 }}
          />
        </Group>
        <Textarea
          label="Inputs"
          description="One per line: each line becomes one vector. Ctrl+Enter embeds."
          placeholder={'A heat pump moves heat from outside air into the house.\nA gas boiler burns fuel to heat water.'}
          autosize
          minRows={4}
          maxRows={12}
          mt="sm"
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          onKeyDown={onKeyDown}
        />
        <Group justify="space-between" mt="sm">
          <Text size="sm" c="dimmed" data-testid="embedding-input-count">
            {inputs.length === 1 ? '1 input' : `${inputs.length} inputs`}
          </Text>
          <Button type="submit" leftSection={<IconVector size={16} />} loading={busy} disabled={inputs.length === 0}>
            Embed
          </Button>
        </Group>
      </Card>
      {error === null ? null : (
        <Alert color="red" variant="light" role="alert" title="The call was refused">
          {error}
        </Alert>
      )}
      <Paper withBorder radius="md" aria-live="polite">
        {run === null ? (
          <Text c="dimmed" ta="center" py="xl" size="sm">
            Embed one or more texts to see their vectors, how alike they are, and which model the router picked.
          </Text>
        ) : (
          <EmbeddingResults inputs={run.inputs} answer={run.answer} />
        )}
      </Paper>
    </>
  );
}
