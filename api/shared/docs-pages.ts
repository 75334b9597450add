/**
 * The pages every service shows its OpenAPI document with, from its own origin (no CDN):
 * - `/reference`: Redoc, the reference a newcomer starts from: the overview in the sidebar, every
 *   operation with its parameters, its examples per status and its code samples (x-codeSamples),
 *   which Swagger UI does not show (docs/decisions.md, "The API reference");
 * - `/docs`: Swagger UI, to try requests with one's own credential.
 * Neither page calls anything but its own service: Redoc's one outside request (its attribution
 * logo, from Redocly's CDN) is replaced by an empty image when the bundle is read.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

type Asset = { type: string; body: Buffer };
const JS = 'application/javascript; charset=utf-8';

const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** Static assets of the Swagger UI page, read once. */
export const DOCS_ASSETS: Record<string, Asset> = Object.fromEntries(
  [
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['swagger-ui-bundle.js', JS],
  ].map(([file, type]) => [file, { type: type!, body: readFileSync(path.join(swaggerDir, file!)) }]),
);

/**
 * Redoc's standalone bundle. The redoc package is a devDependency (its bundle is all we serve;
 * its 75 MB of dependencies are not the image's): in the image, `npm run build` has copied the
 * bundle to dist/assets (ops/build-assets.ts); from the sources, it is read from the package.
 */
export function redocBundlePath(): string {
  const built = path.resolve(__dirname, '..', '..', 'assets', 'redoc.standalone.js');
  return existsSync(built) ? built : require.resolve('redoc/bundles/redoc.standalone.js');
}

/** Redoc's attribution logo, fetched from Redocly's CDN; an empty image instead. */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

let referenceAssets: Record<string, Asset> | undefined;
/** Static assets of the reference page, read on first use. */
export function referenceAsset(name: string): Asset | undefined {
  referenceAssets ??= {
    'redoc.standalone.js': { type: JS, body: Buffer.from(readFileSync(redocBundlePath(), 'utf8').replaceAll(REDOC_CDN_LOGO, 'data:,')) },
    'init.js': { type: JS, body: Buffer.from(REFERENCE_INIT_JS) },
  };
  return referenceAssets[name];
}

const escapeHtml = (text: string) => text.replace(/[<>&"]/g, '');

/** A page of one renderer: its head's extra lines, its body (no favicon request: none is served). */
function page(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" href="data:,">
  <title>${escapeHtml(title)}</title>
  ${head}
</head>
<body>
  ${body}
</body>
</html>`;
}

export function docsPage(title: string): string {
  const safe = escapeHtml(title);
  return page(
    `${title} — try it`,
    '<link rel="stylesheet" href="/docs/swagger-ui.css">',
    `<noscript><p>${safe}: the reference is at <a href="/reference">/reference</a>, the machine-readable description at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
  <div id="docs"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>`,
  );
}

export const DOCS_INIT_JS = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true, persistAuthorization: true });`;

export function referencePage(title: string, description: string): string {
  return page(
    `${title} — reference`,
    `<meta name="description" content="${escapeHtml(description)}">`,
    `<noscript><p>${escapeHtml(title)}: the machine-readable description is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
  <main id="reference"></main>
  <script src="/reference/redoc.standalone.js"></script>
  <script src="/reference/init.js"></script>`,
  );
}

/**
 * Redoc's options: success answers open, examples unfolded three levels, the primary colour dark
 * enough for text on white (WCAG AA). A scrollable code block or table (a long curl line, the
 * plans' table on a phone) gets a tab stop, so that it can be scrolled from the keyboard (axe:
 * scrollable-region-focusable).
 */
const REFERENCE_INIT_JS = `Redoc.init('/openapi.json', {
  expandResponses: '200,201,202',
  jsonSampleExpandLevel: 3,
  hideLoading: true,
  theme: { colors: { primary: { main: '#1f5fbf' } } },
}, document.getElementById('reference'));
new MutationObserver(function () {
  document.querySelectorAll('pre:not([tabindex]), .redoc-markdown table:not([tabindex])').forEach(function (block) { block.setAttribute('tabindex', '0'); });
}).observe(document.body, { childList: true, subtree: true });
`;
