/**
 * The dashboard's page and assets (built by Vite into web/dist) and the security headers of every
 * answer of the web service: a Content-Security-Policy without inline scripts, no framing, no
 * referrer, HSTS in production.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { send } from '@koa/send';
import helmet from 'koa-helmet';
import type { Middleware } from 'koa';
import { AppError } from '../../models/errors';

/** Where `npm run build:web` writes the dashboard (beside the sources, or beside the built server). */
export function defaultDistDir(): string {
  const candidates = [path.resolve(__dirname, '..', '..', 'web', 'dist'), path.resolve(__dirname, '..', '..', '..', 'web', 'dist')];
  return candidates.find((d) => existsSync(path.join(d, 'index.html'))) ?? candidates[0]!;
}

export function securityHeaders(production: boolean): Middleware {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
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

const NOT_SITE = /^\/(api\/|health$|openapi\.json$|docs(\/|$))/;

/**
 * GET of anything but the API: a built asset, or the page itself (the dashboard routes in the
 * browser). Hashed assets are cached for a year; the page never, so a deploy is seen at once.
 */
export function staticSite(distDir: string): Middleware {
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || NOT_SITE.test(ctx.path)) return await next();
    if (!existsSync(path.join(distDir, 'index.html'))) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'The dashboard is not built: run npm run build:web', { details: { dependency: 'web build' } });
    }
    if (ctx.path.startsWith('/assets/')) {
      const served = await send(ctx, ctx.path, { root: distDir, immutable: true, maxage: 31_536_000_000 }).catch(() => undefined);
      if (served) return;
      throw new AppError('ROUTE_NOT_FOUND', `No such asset: ${ctx.path}`);
    }
    if (/^\/[\w.-]+\.(ico|png|svg|txt|webmanifest)$/.test(ctx.path) && existsSync(path.join(distDir, ctx.path))) {
      await send(ctx, ctx.path, { root: distDir, maxage: 86_400_000 });
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    await send(ctx, 'index.html', { root: distDir });
  };
}
