// The dashboard's build (issue 26): `npm run build:web` writes web/dist, which the web service
// serves. Vite's own TSX transform (oxc) compiles React's JSX; nothing is fetched at run time.
import { defineConfig } from 'vite';

export default defineConfig({
  root: __dirname,
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 800 },
  oxc: { jsx: { runtime: 'automatic' } },
  server: { port: 5173, proxy: { '/api': 'http://127.0.0.1:3000' } },
});
