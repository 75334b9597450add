// The dashboard's build (issue 26): `npm run build:web` writes web/dist, which the web service
// serves. Vite's own TSX transform (oxc) compiles React's JSX; nothing is fetched at run time.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Text files of the build at least this big (the service's compression threshold too). */
const PRECOMPRESS_MIN_BYTES = 1024;
const TEXT = /\.(?:js|mjs|css|html|svg|json|txt|xml|webmanifest)$/;

/**
 * Writes a .br (quality 11) and a .gz (level 9) twin beside every text file of the build, once,
 * at build time: the web service (api/web/site.ts, @koa/send) sends the twin a browser accepts,
 * with its Content-Length, and spends no CPU compressing the same bytes on every request (as
 * compressing on the fly would, at a lower brotli quality).
 */
function precompress(): Plugin {
  return {
    name: 'newsletter:precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir ?? path.resolve(__dirname, 'dist');
      await Promise.all(
        Object.keys(bundle)
          .filter((name) => TEXT.test(name))
          .map(async (name) => {
            const file = path.join(dir, name);
            const raw = await readFile(file);
            if (raw.length < PRECOMPRESS_MIN_BYTES) return;
            const [br, gzipped] = await Promise.all([
              brotli(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
              gz(raw, { level: constants.Z_BEST_COMPRESSION }),
            ]);
            await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gzipped)]);
          }),
      );
    },
  };
}

export default defineConfig({
  root: __dirname,
  // No source maps: they were public (web/dist/assets/*.map, the whole source). site.ts refuses
  // *.map in any case.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 800 },
  plugins: [precompress()],
  oxc: { jsx: { runtime: 'automatic' } },
  server: { port: 5173, proxy: { '/api': 'http://127.0.0.1:3000' } },
});
