import { build } from 'vite';
await build({ configFile: false, root: '/tmp/csp-exp', base: '/', logLevel: 'warn', build: { outDir: '/tmp/csp-exp/dist', emptyOutDir: true, modulePreload: { polyfill: false } }, resolve: {} });
