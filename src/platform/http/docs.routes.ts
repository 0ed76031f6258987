/** The reference: the OpenAPI document, Swagger UI's page and its local assets (not themselves documented). */
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { AppState } from './context';
import { ApiError } from './httpErrors';
import { EXACT_PATHS } from './registry';

const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const DOCS_ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

/**
 * What the reference's page may load and who may frame it: users paste API keys into it, so no
 * script but ours, no framing (clickjacking), no sniffing, no Referer carrying the page's URL.
 * Swagger UI sets inline styles and data: images, so those stay allowed.
 */
export const DOCS_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
} as const;

export function docsRoutes(document: () => object) {
  const router = new Router<AppState>(EXACT_PATHS);
  router.use(async (ctx, next) => {
    ctx.set(DOCS_HEADERS);
    await next();
  });
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = document();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = docsPage();
  });
  router.get('/docs/assets/:file', (ctx) => {
    if (ctx.params.file === 'docs-init.js') {
      ctx.type = 'application/javascript';
      ctx.body = DOCS_INIT_JS;
      return;
    }
    if (!DOCS_ASSETS.has(ctx.params.file)) throw new ApiError(404, 'not_found', 'no such asset');
    ctx.type = path.extname(ctx.params.file);
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(path.join(swaggerUiDir, ctx.params.file));
  });
  return router;
}

/** A reference page rendered by Swagger UI from local assets (no CDN). */
function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Payment Custody Service — API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs-init.js"></script>
</body></html>`;
}

/** Kept in a file of its own so a strict Content-Security-Policy needs no inline script. */
const DOCS_INIT_JS = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#reference', deepLinking: true });`;
