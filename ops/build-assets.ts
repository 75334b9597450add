/**
 * `npm run build`'s last step: the static files the services serve that come from devDependencies
 * (Redoc's standalone bundle, for /reference) are copied into dist/assets, since the image installs
 * production dependencies only (api/shared/docs-pages.ts).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const out = path.resolve(__dirname, '..', 'dist', 'assets');
mkdirSync(out, { recursive: true });
copyFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), path.join(out, 'redoc.standalone.js'));
