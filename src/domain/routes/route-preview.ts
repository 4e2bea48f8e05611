import type { RouteKind } from './route-kinds.js';

/**
 * What a route of `kind` sends for a sample alert, as the dashboard's "Preview" shows it: the
 * request the sender would make (src/notify/routes/formats/), with a placeholder target and no
 * credential. `body` is the exact text sent; `json` is it parsed (null for ntfy's plain text).
 */
export interface RoutePreview {
  kind: RouteKind;
  method: string;
  /** The receiver's URL with the placeholder target, e.g. `https://hooks.slack.com/services/…`. */
  url: string;
  /** The request's headers, the signature and authorization ones shown shortened. */
  headers: Record<string, string>;
  body: string;
  json: unknown;
}

/** Renders the sample alert for a kind, posted to `channel` (its name appears in the message). */
export type RoutePreviewer = (kind: RouteKind, channel: { id: string; slug: string; name: string }) => RoutePreview;
