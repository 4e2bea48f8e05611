/**
 * undici, loaded on the first outbound request instead of at start: importing it costs 100–450 ms
 * of every restart (issue 31), and many installations never fetch an attachment or call a route.
 */
type Undici = typeof import('undici');

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici');
  return loading;
}
