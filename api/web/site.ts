/**
 * The dashboard's page and assets (built by Vite into web/dist) and the security headers of every
 * answer of the web service: a Content-Security-Policy without inline scripts, no framing, no
 * referrer, HSTS in production.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { send } from '@koa/send';
import helmet from 'koa-helmet';
import type { Context, Middleware } from 'koa';
import { AppError } from '../../models/errors';

/** Where `npm run build:web` writes the dashboard (beside the sources, or beside the built server). */
export function defaultDistDir(): string {
  const candidates = [path.resolve(__dirname, '..', '..', 'web', 'dist'), path.resolve(__dirname, '..', '..', '..', 'web', 'dist')];
  return candidates.find((d) => existsSync(path.join(d, 'index.html'))) ?? candidates[0]!;
}

/** The API's reference and Swagger UI (api/shared/docs-pages.ts): pages of the web service too. */
const DOCS_PAGES = /^\/(docs|reference)(\/|$)/;

/**
 * The security headers. The reference pages keep every rule but two: their renderers (Redoc,
 * Swagger UI) set inline styles, and Redoc searches in a worker it makes from a blob. Their
 * scripts are still this origin's alone, and they hold no session data.
 */
export function securityHeaders(production: boolean): Middleware {
  const site = headers(production, false);
  const docs = headers(production, true);
  return (ctx, next) => (DOCS_PAGES.test(ctx.path) ? docs(ctx, next) : site(ctx, next));
}

function headers(production: boolean, docsPage: boolean): Middleware {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: docsPage ? ["'self'", "'unsafe-inline'"] : ["'self'"],
        ...(docsPage ? { workerSrc: ["'self'", 'blob:'] } : {}),
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(production ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: production ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'no-referrer' },
    // frame-ancestors 'none' for browsers that still read only the older header.
    xFrameOptions: { action: 'deny' },
    crossOriginEmbedderPolicy: false,
  });
}

const NOT_SITE = /^\/(api\/|health$|openapi\.json$|docs(\/|$)|reference(\/|$))/;
/**
 * Files of the build never sent by their own name: source maps (they would publish the whole
 * source; the build makes none, this holds if one is made) and the precompressed twins, which are
 * sent only in place of their file.
 */
const NEVER_SENT = /\.(?:map|br|gz)$/i;
/** Files the build copies from web/public to the top (robots.txt, favicon.svg…). */
const TOP_FILE = /^\/[\w.-]+\.(ico|png|svg|txt|webmanifest)$/;
/**
 * The service worker of alerts by Web Push (web/public/sw.js): at the top so that its scope is the
 * whole dashboard, and never cached, so that a new one is picked up at the next visit.
 */
const SERVICE_WORKER = '/sw.js';
/** A path whose last segment has an extension names a file, never a page of the dashboard. */
const FILE_LIKE = /\.[A-Za-z0-9]+$/;

/**
 * GET of anything but the API: a built asset, a top file (robots.txt…), or the page itself (the
 * dashboard routes in the browser). Hashed assets are cached for a year, top files a day; the page
 * never, so a deploy is seen at once. A file of the build with a .br or .gz twin (written by the
 * build, see web/vite.config.ts) is sent as that twin to a browser that accepts it. Any other path
 * that looks like a file (/sitemap.xml, /wp-login.php, a map) is a 404, not the page.
 */
export function staticSite(distDir: string): Middleware {
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || NOT_SITE.test(ctx.path)) return await next();
    if (!existsSync(path.join(distDir, 'index.html'))) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'The dashboard is not built: run npm run build:web', { details: { dependency: 'web build' } });
    }
    // Tested as send() reads it: decoded (%2Emap is .map).
    const file = decoded(ctx.path);
    if (file === undefined || NEVER_SENT.test(file)) noSuchFile(ctx);
    ctx.vary('Accept-Encoding');
    if (ctx.path.startsWith('/assets/')) {
      const served = await send(ctx, ctx.path, { root: distDir, immutable: true, maxage: 31_536_000_000 }).catch(() => undefined);
      if (!served) noSuchFile(ctx);
      return;
    }
    if (ctx.path === SERVICE_WORKER && existsSync(path.join(distDir, SERVICE_WORKER))) {
      await send(ctx, SERVICE_WORKER, { root: distDir });
      ctx.set('Cache-Control', 'no-cache');
      return;
    }
    if (TOP_FILE.test(ctx.path) && existsSync(path.join(distDir, ctx.path))) {
      await send(ctx, ctx.path, { root: distDir, maxage: 86_400_000 });
      return;
    }
    if (FILE_LIKE.test(file) && file !== '/index.html') noSuchFile(ctx);
    ctx.set('Cache-Control', 'no-cache');
    await send(ctx, 'index.html', { root: distDir });
  };
}

function decoded(urlPath: string): string | undefined {
  try {
    return decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
}

function noSuchFile(ctx: Context): never {
  // Nothing of a half-sent file: send() sets Content-Encoding before it finds the file missing.
  ctx.remove('Content-Encoding');
  throw new AppError('ROUTE_NOT_FOUND', `No such file: ${ctx.path}`);
}
