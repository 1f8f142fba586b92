import { ActionIcon, Code, CopyButton, Group, ScrollArea, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/** A copy icon button with a tooltip that says when it worked. */
export function CopyIcon({ value, label }: { readonly value: string; readonly label: string }) {
  return (
    <CopyButton value={value} timeout={2000}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : label} withArrow position="top">
          <ActionIcon variant={copied ? 'filled' : 'subtle'} color={copied ? 'teal' : 'gray'} onClick={copy} aria-label={label} data-copied={copied ? 'true' : 'false'}>
            {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

/** A value in monospace with its copy button, e.g. a router id or a new key. */
export function CopyValue({ value, label, testId }: { readonly value: string; readonly label: string; readonly testId?: string }) {
  return (
    <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
      <Code data-testid={testId} style={{ fontSize: 'var(--mantine-font-size-sm)', overflowWrap: 'anywhere', padding: '6px 10px', minWidth: 0 }}>
        {value}
      </Code>
      <CopyIcon value={value} label={label} />
    </Group>
  );
}

/**
 * A block of code (a snippet) with its copy button beside it: never over it, where
 * on a narrow screen the lines would scroll under the button.
 */
export function CopyBlock({ code, label }: { readonly code: string; readonly label: string }) {
  return (
    <Group gap="xs" wrap="nowrap" align="flex-start">
      <ScrollArea type="auto" style={{ flex: 1, minWidth: 0 }}>
        <Code block style={{ fontSize: 13, whiteSpace: 'pre' }}>
          {code}
        </Code>
      </ScrollArea>
      <CopyIcon value={code} label={label} />
    </Group>
  );
}
