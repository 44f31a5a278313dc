import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The studio is served by the datagate server under /studio/ (src/modules/studio-module.ts); its hashed
// assets are cached for a year, its page never. No inline script or style: the page runs under
// `Content-Security-Policy: default-src 'self'`.
export default defineConfig({
  root: import.meta.dirname,
  base: '/studio/',
  plugins: [preact({ prerender: { enabled: false } })],
  build: {
    outDir: '../dist/studio',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    target: 'es2022',
  },
});
