/**
 * Redirect targets taken from input (`next`, `back`): resolved against PUBLIC_URL
 * the way a browser would resolve them, and kept only when they stay on our own
 * origin. Browsers drop tabs and newlines inside URLs (`/\t/evil` becomes
 * `//evil`, another host) and a raw CR or LF in a Location header throws, so any
 * control character, raw or percent-encoded, refuses the target outright.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The same-origin path (with query and fragment) `raw` leads to, or undefined when it leaves the site or is malformed. */
export function localRedirect(raw: unknown, publicUrl: string): string | undefined {
  if (typeof raw !== 'string' || raw === '' || raw.length > 2048 || CONTROL.test(raw)) return undefined;
  const base = new URL(publicUrl);
  let target: URL;
  try {
    target = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (target.origin !== base.origin) return undefined;
  // `/.//evil` normalises to the path `//evil`, which a Location header would read as a host.
  const path = target.pathname.replace(/^\/{2,}/, '/') + target.search + target.hash;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  return CONTROL.test(decoded) ? undefined : path;
}
