import { AppError } from '../domain/errors.js';

/**
 * Reads a request body up to `max` bytes. A declared Content-Length over the
 * cap is refused before reading; a chunked body is cut off as soon as it passes.
 */
export async function readBodyCapped(req: Request, max: number, what = 'body'): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    throw new AppError('payload-too-large', `${what} is ${declared} bytes; the limit is ${max} bytes`);
  }
  // With a Content-Length within the cap (Node's parser holds the body to it),
  // read it whole: on @hono/node-server this is the fast path, while touching
  // `req.body` builds a full web Request (measured: a third of the request cost).
  if (Number.isFinite(declared)) return new Uint8Array(await req.arrayBuffer());
  if (!req.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new AppError('payload-too-large', `${what} exceeds the limit of ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** application/json, with or without parameters, and any `+json` type. */
function isJsonContentType(contentType: string): boolean {
  return /^application\/([\w.+-]+\+)?json\b/i.test(contentType);
}

/**
 * What a request body is, by its Content-Type: JSON, or (where `multipart` is
 * allowed) multipart/form-data. Anything else is the 415 problem.
 */
export function requireBodyType(contentType: string | undefined, opts: { multipart?: boolean } = {}): 'json' | 'multipart' {
  const type = (contentType ?? '').toLowerCase();
  if (isJsonContentType(type)) return 'json';
  if (opts.multipart && type.startsWith('multipart/form-data')) return 'multipart';
  throw unsupportedContentType(type);
}

/** The 415 for a body whose Content-Type the endpoint does not take. */
export function unsupportedContentType(contentType: string | undefined): AppError {
  const type = (contentType ?? '').toLowerCase();
  return new AppError('unsupported-content-type', `Content-Type ${type || '(none)'} is not accepted: send -H 'Content-Type: application/json'`);
}

/** Deeper JSON than this is refused: validation and serialisation recurse, and no alert needs it. */
const MAX_JSON_DEPTH = 64;

/**
 * A JSON body as text. A leading UTF-8 byte order mark is dropped, as RFC 8259
 * 8.1 allows: Windows PowerShell 5 writes one, and the parser's complaint about
 * an invisible character would not help anybody.
 */
export function jsonText(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * JSON.parse with the parser's own words in the problem's detail, and a
 * nesting limit. `what` names the input in messages ("the body", "the payload part").
 */
export function parseJson(input: Uint8Array | string, what = 'the body'): unknown {
  const text = typeof input === 'string' ? input : jsonText(input);
  if (text.trim() === '') throw new AppError('malformed-json', `${what} is empty; send a JSON object`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new AppError('malformed-json', `${what} is not valid JSON: ${(err as Error).message}`);
  }
  if (!fewBrackets(text) && depthExceeds(value, MAX_JSON_DEPTH)) {
    throw new AppError('invalid-payload', `the JSON is nested deeper than ${MAX_JSON_DEPTH} levels`, {
      details: [{ code: 'too_big', maximum: MAX_JSON_DEPTH, type: 'depth', inclusive: true, exact: false, message: `nested deeper than ${MAX_JSON_DEPTH} levels`, path: [] }],
    });
  }
  return value;
}

/**
 * True when the text holds at most MAX_JSON_DEPTH `{` and `[` (strings included):
 * then no value can nest deeper, and the walk below is skipped. Only short texts
 * are scanned (a typical alert is well under a kilobyte); a large one is walked.
 */
function fewBrackets(text: string): boolean {
  if (text.length > 4096) return false;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if ((ch === 0x7b || ch === 0x5b) && ++n > MAX_JSON_DEPTH) return false;
  }
  return true;
}

/** Iterative, so a hostile document cannot exhaust the stack while being measured. */
function depthExceeds(root: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return false;
}
