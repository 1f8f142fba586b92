import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard: built into web/dist, which the gateway serves at `/`.
 * `npx vite --config web/vite.config.ts` serves it with hot reload and sends /api to
 * MODELPORT_DEV_API (default http://127.0.0.1:8080), a running gateway.
 */
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 700,
  },
  server: {
    proxy: { '/api': { target: process.env.MODELPORT_DEV_API ?? 'http://127.0.0.1:8080', changeOrigin: false } },
  },
});
