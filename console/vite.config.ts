import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/**
 * The operator console, built into dist/console and served by the web process at /console/.
 * Asset names carry a content hash so the server can cache them for a year; index.html is not
 * cached. No inline script or style is emitted, so the strict CSP holds.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [preact({ prerender: { enabled: false } })],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: true,
  },
  server: { proxy: { '/admin': 'http://127.0.0.1:3000', '/console/api': 'http://127.0.0.1:3000' } },
});
