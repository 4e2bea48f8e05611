import type { ProblemDocument } from './types.js';

/**
 * A refusal from the service: the problem document (RFC 9457) turned into an Error, so a caller can
 * `catch (e) { if (e instanceof AlertbridgeError && e.status === 429) … }`. A 401 of the read API
 * (its own body) and a non-problem answer (say, a proxy's HTML 502) are mapped to the same members.
 */
export class AlertbridgeError extends Error {
  override readonly name = 'AlertbridgeError';
  /** The problem type URL (`…/problems/<name>`), or `about:blank`. */
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string | undefined;
  /** Every issue of an invalid payload (`[{code, message, path}]`); empty otherwise. */
  readonly details: readonly Record<string, unknown>[];
  readonly instance: string | undefined;
  /** The answer's X-Request-Id: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds from Retry-After, when the answer had one. */
  readonly retryAfter: number | undefined;
  /** The body as received (parsed JSON, or text). */
  readonly body: unknown;

  constructor(init: { type: string; title: string; status: number; detail?: string; details?: readonly Record<string, unknown>[]; instance?: string; requestId?: string; retryAfter?: number; body?: unknown }) {
    super(init.detail ? `${init.title}: ${init.detail}` : init.title);
    this.type = init.type;
    this.title = init.title;
    this.status = init.status;
    this.detail = init.detail;
    this.details = init.details ?? [];
    this.instance = init.instance;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }

  /** The last path segment of `type` (`invalid-payload`), or `undefined` for `about:blank`. */
  get problem(): string | undefined {
    const m = /\/problems\/([^/?#]+)$/.exec(this.type);
    return m?.[1];
  }
}

/** Reads a failed answer into an AlertbridgeError (never throws while reading). */
export async function errorFromResponse(res: Response): Promise<AlertbridgeError> {
  const text = await res.text().catch(() => '');
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const retryAfter = retryAfterSeconds(res.headers.get('retry-after'));
  const common = { status: res.status, requestId, retryAfter, body };
  if (isObject(body) && typeof body.title === 'string') {
    const p = body as Partial<ProblemDocument>;
    return new AlertbridgeError({
      ...common,
      type: typeof p.type === 'string' ? p.type : 'about:blank',
      title: body.title,
      detail: typeof p.detail === 'string' ? p.detail : undefined,
      details: Array.isArray(p.details) ? p.details : [],
      instance: typeof p.instance === 'string' ? p.instance : undefined,
      requestId: requestId ?? (typeof body.requestId === 'string' ? body.requestId : undefined),
    });
  }
  if (isObject(body) && body.error === 'Unauthorized') {
    // The read API's 401: {error, reason, message, docs}; `docs` is the problem page of the reason.
    return new AlertbridgeError({
      ...common,
      type: typeof body.docs === 'string' ? body.docs : 'about:blank',
      title: 'Unauthorized',
      detail: typeof body.message === 'string' ? body.message : undefined,
    });
  }
  return new AlertbridgeError({ ...common, type: 'about:blank', title: res.statusText || `HTTP ${res.status}` });
}

/** Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
