import fs from 'node:fs';
import { Hono } from 'hono';
import type { DashEnv } from '../http/env.js';
import { THEME_COLOR } from '../views/layout.js';

/**
 * What makes the dashboard installable ("Add to home screen" opens an app
 * window): the web app manifest and its icons. Public (the browser fetches
 * the manifest without cookies) and the same for every installation.
 * The icons are PNGs rendered from icons/icon.svg by scripts/make-icons.ts.
 */
const ICON_DIR = new URL('../icons/', import.meta.url);
const ICONS = ['icon-192.png', 'icon-512.png', 'icon-maskable-512.png', 'apple-touch-icon.png'] as const;
const iconFiles = new Map<string, Buffer>(ICONS.map((name) => [name, fs.readFileSync(new URL(name, ICON_DIR))]));

export const MANIFEST = {
  id: '/feed',
  name: 'Alertbridge',
  short_name: 'Alertbridge',
  description: 'Alerts from your services, deploys and chats in one feed.',
  start_url: '/feed',
  scope: '/',
  display: 'standalone',
  background_color: '#f6f7f9',
  theme_color: THEME_COLOR,
  icons: [
    { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
    { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
    { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  ],
  shortcuts: [
    { name: 'Unread alerts', url: '/feed/unread' },
    { name: 'Search', url: '/search' },
  ],
};
const MANIFEST_BODY = JSON.stringify(MANIFEST);

export function appShellRoutes(): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  // A day: a new icon or name reaches installed apps within one, and a page load never waits for them.
  const cache = 'public, max-age=86400';
  r.get('/manifest.webmanifest', (c) => c.body(MANIFEST_BODY, 200, { 'content-type': 'application/manifest+json; charset=utf-8', 'cache-control': cache }));
  r.get('/icons/:file', (c) => {
    const body = iconFiles.get(c.req.param('file'));
    if (!body) return c.notFound();
    return c.body(new Uint8Array(body), 200, { 'content-type': 'image/png', 'cache-control': cache });
  });
  return r;
}
