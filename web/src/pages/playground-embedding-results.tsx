import { Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import type { PlaygroundEmbeddings } from '../api/types';
import { formatCount } from '../components/format';
import { cosineSimilarity, vectorOf } from '../components/vector-math';
import { MetaLine } from './playground-meta';

/** Values shown of each vector; the rest are summed up by its length. */
const FIRST_VALUES = 6;
/** Rows of the vector table; a long list is cut with a note. */
const MAX_ROWS = 50;
/** Inputs compared in the similarity matrix: it grows with the square of their number. */
const MATRIX_SIZE = 8;

const signed = (value: number, digits: number): string => (Number.isNaN(value) ? '—' : `${value < 0 ? '−' : ''}${Math.abs(value).toFixed(digits)}`);

/** A call's answer: its `_meta`, each input's vector (length and first values), and how alike the inputs are. */
export function EmbeddingResults({ inputs, answer }: { readonly inputs: readonly string[]; readonly answer: PlaygroundEmbeddings }) {
  const vectors = [...answer.data].sort((a, b) => a.index - b.index).map((item) => vectorOf(item.embedding));
  const lengths = [...new Set(vectors.map((vector) => vector.length))];
  return (
    <Stack gap="md" p="md" data-testid="embedding-result">
      <Stack gap={0}>
        <Group justify="space-between" gap="xs">
          <Text fw={600}>
            {vectors.length === 1 ? '1 vector' : `${vectors.length} vectors`} of {lengths.join(', ')} dimensions
          </Text>
          <Text size="sm" c="dimmed">
            {formatCount(answer.usage.prompt_tokens)} input tokens
          </Text>
        </Group>
        <MetaLine meta={answer._meta} testId="embedding-meta" />
      </Stack>
      <Table.ScrollContainer minWidth={640}>
        <Table verticalSpacing={6} data-testid="embedding-vectors">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={48}>#</Table.Th>
              <Table.Th miw={180}>Input</Table.Th>
              <Table.Th ta="right">Length</Table.Th>
              <Table.Th>First values</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {vectors.slice(0, MAX_ROWS).map((vector, index) => (
              <Table.Tr key={index} data-testid="embedding-row">
                <Table.Td>{index + 1}</Table.Td>
                <Table.Td>
                  <Text size="sm" lineClamp={2} maw={340} title={inputs[index]} style={{ overflowWrap: 'anywhere' }}>
                    {inputs[index] ?? ''}
                  </Text>
                </Table.Td>
                <Table.Td ta="right" data-testid="embedding-length">
                  {vector.length}
                </Table.Td>
                <Table.Td>
                  <Code style={{ whiteSpace: 'nowrap' }}>
                    [{vector.slice(0, FIRST_VALUES).map((value) => signed(value, 4)).join(', ')}
                    {vector.length > FIRST_VALUES ? ', …' : ''}]
                  </Code>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {vectors.length > MAX_ROWS ? (
        <Text size="sm" c="dimmed">
          The first {MAX_ROWS} of {vectors.length} vectors.
        </Text>
      ) : null}
      {vectors.length >= 2 ? <SimilarityMatrix vectors={vectors.slice(0, MATRIX_SIZE)} total={vectors.length} /> : null}
    </Stack>
  );
}

/** Blue for alike, red for opposite, clear for unrelated; the number says it too. */
function shade(value: number): string | undefined {
  if (Number.isNaN(value)) return undefined;
  const color = value >= 0 ? 'blue' : 'red';
  return `color-mix(in srgb, var(--mantine-color-${color}-filled) ${Math.round(Math.abs(value) * 55)}%, transparent)`;
}

function SimilarityMatrix({ vectors, total }: { readonly vectors: readonly (readonly number[])[]; readonly total: number }) {
  const labels = vectors.map((_, index) => `#${index + 1}`);
  return (
    <Stack gap={6}>
      <Title order={5}>Cosine similarity</Title>
      <Text size="sm" c="dimmed">
        1 is the same direction, 0 unrelated, −1 opposite. Only vectors of one model and one length compare.
        {total > vectors.length ? ` The first ${vectors.length} of ${total} inputs.` : ''}
      </Text>
      <Table.ScrollContainer minWidth={80 + vectors.length * 72}>
        <Table withColumnBorders withTableBorder verticalSpacing={4} data-testid="similarity-matrix" style={{ width: 'auto' }}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              {labels.map((label) => (
                <Table.Th key={label} ta="center" miw={64}>
                  {label}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {vectors.map((row, i) => (
              <Table.Tr key={labels[i]}>
                <Table.Th>{labels[i]}</Table.Th>
                {vectors.map((column, j) => {
                  const value = cosineSimilarity(row, column);
                  return (
                    <Table.Td key={labels[j]} ta="center" ff="monospace" data-testid={`similarity-${i + 1}-${j + 1}`} title={`${labels[i]} and ${labels[j]}`} style={{ background: shade(value) }}>
                      {signed(value, 3)}
                    </Table.Td>
                  );
                })}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
