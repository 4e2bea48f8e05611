import type { JSX } from 'hono/jsx/jsx-runtime';

/** Escapes text for HTML element content and quoted attribute values (the e-mails, the docs pages, search highlights). */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const SPECIAL = /[&<>"']/;

export function escapeHtml(s: unknown): string {
  const text = String(s ?? '');
  // Most texts need nothing: no copy for them (a search page escapes hundreds).
  return SPECIAL.test(text) ? text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!) : text;
}

/**
 * A JSX tree as an HTML string. hono/jsx types a render as possibly asynchronous
 * (async components); the views here are synchronous by design, so a Promise means
 * a component broke that rule and fails loudly instead of rendering "[object Promise]".
 */
export function renderHtml(node: JSX.Element): string {
  if (node instanceof Promise) throw new Error('views must render synchronously');
  return node.toString();
}
