import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import { buildStamp } from './build-stamp.ts';
import { precompressAssets } from './precompress.ts';

/**
 * The operator console, built into dist/console and served by the web process at /console/.
 * Asset names carry a content hash so the server can cache them for a year; index.html is not
 * cached. No inline script or style is emitted, so the strict CSP holds. Each asset also gets a
 * .br and a .gz beside it, which the server sends to browsers that accept them; .sources-hash
 * names the sources the build came from (build-stamp.ts).
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [preact({ prerender: { enabled: false } }), precompressAssets(), buildStamp()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: true,
    // The only slow callback is the pre-compression (brotli at its highest quality, about 1 s of
    // CPU), slow by choice: it runs once per build so that the server never compresses.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: { proxy: { '/admin': 'http://127.0.0.1:3000', '/console/api': 'http://127.0.0.1:3000' } },
});
