import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/charts/styles.css';
import { createTheme, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';

const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'md',
  respectReducedMotion: true,
  fontFamily: 'Inter, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
});

/**
 * The server's Content-Security-Policy allows <style> elements only with this page's nonce, which index.html
 * carries in `<meta property="csp-nonce">` (src/http/dashboard/security-headers.ts). Mantine adds its styles
 * with it; react-remove-scroll (Mantine's modals) reads webpack's global for it (get-nonce). Absent under `vite dev`.
 */
const styleNonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce || undefined;
if (styleNonce !== undefined) (globalThis as { __webpack_nonce__?: string }).__webpack_nonce__ = styleNonce;

const root = document.getElementById('root');
if (root === null) throw new Error('#root missing from index.html');
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto" {...(styleNonce === undefined ? {} : { getStyleNonce: () => styleNonce })}>
      <Notifications position="top-right" />
      <App />
    </MantineProvider>
  </StrictMode>,
);
