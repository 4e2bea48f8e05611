import type { Context } from 'hono';
import type { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError, AuthError, type AuthFailureReason, type ErrorCode } from '../domain/errors.js';
import { IDEMPOTENCY_KEY_MAX_CHARS, IDEMPOTENCY_WINDOW_HOURS } from '../domain/idempotency.js';
import { TOKEN_SECRET_HEX_CHARS } from '../domain/tokens.js';
import { maskPath } from '../lib/logger.js';
import { SUPPORTED_FORMATS_TEXT, mediaLimitsText } from '../media/formats.js';
import { MAX_ATTACHMENTS } from '../domain/media.js';
import { unsupportedContentType } from './body.js';

interface ProblemType {
  status: ContentfulStatusCode;
  title: string;
  /** Shown on the human page served at the type URL. */
  description: string;
}

/**
 * Every problem type the service can answer with. The `type` URL of each is
 * `${PUBLIC_URL}/problems/<name>` and that URL serves a page with the description.
 */
export const PROBLEM_TYPES: Record<ErrorCode, ProblemType> = {
  'invalid-payload': {
    status: 400,
    title: 'invalid payload',
    description:
      'The JSON body does not match the webhook payload schema. `details` lists every issue with its `path`; fix those fields and send again.',
  },
  'malformed-json': {
    status: 400,
    title: 'malformed JSON',
    description: 'The body could not be parsed as JSON. Check quoting and escaping; `detail` says where parsing stopped.',
  },
  'unsupported-content-type': {
    status: 415,
    title: 'unsupported content type',
    description: 'Send `Content-Type: application/json`, or `multipart/form-data` with a `payload` part and file parts.',
  },
  'payload-too-large': {
    status: 413,
    title: 'payload too large',
    description: 'The request body is larger than the service accepts. docs/webhook.md lists every size limit.',
  },
  'invalid-signature': {
    status: 401,
    title: 'invalid signature',
    description:
      "This channel has a signing secret: a GitHub delivery must carry `X-Hub-Signature-256` (`sha256=` and the HMAC-SHA256 of the body under the secret). Set the same secret in the GitHub webhook's settings.",
  },
  'unknown-token': {
    status: 404,
    title: 'invalid webhook token',
    description:
      'No channel has this webhook token. It may have been rotated: copy the current webhook URL from the channel settings (or `npm run admin -- channel rotate-webhook`).',
  },
  'idempotency-key-in-use': {
    status: 409,
    title: 'request with this Idempotency-Key is still running',
    description: 'A request with the same Idempotency-Key is still being processed. Wait a moment and retry; the retry will receive the first answer.',
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'Idempotency-Key reused with a different request',
    description: `This Idempotency-Key was already used in the last ${IDEMPOTENCY_WINDOW_HOURS} hours with a different body. Use a fresh key for a different request.`,
  },
  'invalid-idempotency-key': {
    status: 400,
    title: 'invalid Idempotency-Key',
    description: `An Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters.`,
  },
  'workflow-run-finished': {
    status: 409,
    title: 'workflow run already finished',
    description:
      'This runId has reached passed or failed. A run cannot move out of a terminal state; report a re-run under a new runId.',
  },
  'channel-is-chat-connected': {
    status: 409,
    title: 'channel is connected to a chat platform',
    description:
      'This channel mirrors a Discord channel and only holds its messages. Post webhook alerts to a standard channel.',
  },
  'invalid-query': {
    status: 400,
    title: 'invalid query parameter',
    description: 'A query parameter is out of range or of the wrong kind. `details` names each one.',
  },
  'invalid-body': {
    status: 400,
    title: 'invalid request body',
    description: 'The JSON body does not match what this endpoint accepts. `details` names each issue.',
  },
  'not-found': {
    status: 404,
    title: 'not found',
    description: 'Nothing exists at this address that your token can see.',
  },
  forbidden: {
    status: 403,
    title: 'forbidden',
    description: 'Only owners and admins of the workspace may do this.',
  },
  'read-only-token': {
    status: 403,
    title: 'token is read-only',
    description:
      'This API token was created read-only: it reads alerts and marks them read, but may not change their status or delete them. Create a token without "read only" for that.',
  },
  'slug-taken': {
    status: 409,
    title: 'slug already taken',
    description: 'Another channel of this workspace already uses this slug. Choose another slug (or name) and create the channel again.',
  },
  'email-taken': {
    status: 409,
    title: 'e-mail address already taken',
    description: 'A user with this e-mail address (compared without case) already exists. Use that user instead of creating a second one.',
  },
  'discord-link-taken': {
    status: 409,
    title: 'Discord link already taken',
    description:
      'One Discord channel feeds one channel: either this channel is already connected to another Discord channel (disconnect it first), or that Discord channel already feeds another channel.',
  },
  'rate-limited': {
    status: 429,
    title: 'too many requests',
    description:
      'Too many requests: more per minute than a token may send to the read API, or than a webhook accepts, or more open live streams than allowed. Wait the number of seconds in `Retry-After` and retry.',
  },
  'unsupported-attachment-type': {
    status: 400,
    title: 'unsupported attachment type',
    description: `Attachments must be ${SUPPORTED_FORMATS_TEXT}, recognised from the bytes. SVG is refused.`,
  },
  'attachment-type-mismatch': {
    status: 400,
    title: 'attachment type does not match its content',
    description: 'The declared `type` (image, video, audio) contradicts the bytes of the file.',
  },
  'attachment-too-large': {
    status: 413,
    title: 'attachment too large',
    description: `Largest accepted attachment: ${mediaLimitsText()}.`,
  },
  'too-many-attachments': {
    status: 400,
    title: 'too many attachments',
    description: `An alert carries at most ${MAX_ATTACHMENTS} attachments (uploaded files and \`attachments\` items together).`,
  },
  'attachment-fetch-failed': {
    status: 422,
    title: 'attachment URL could not be fetched',
    description:
      'The service could not download an attachment URL: it was refused (private or local address), timed out, redirected too often, or answered with an error. `detail` gives the reason.',
  },
  'storage-unavailable': {
    status: 503,
    title: 'storage unavailable',
    description:
      'The service could not store this request: its disk is full (or below the free-space reserve kept for the database), or the disk reported an I/O error. Nothing was stored. Retry after `Retry-After` seconds; the service recovers by itself once space is freed.',
  },
  internal: {
    status: 500,
    title: 'internal server error',
    description: 'Something failed on our side. Nothing was stored; it is safe to retry.',
  },
};

export const AUTH_MESSAGES: Record<AuthFailureReason, string> = {
  no_credentials: 'Send the header `Authorization: Bearer <token>`. Create a token with `npm run admin -- token create`.',
  malformed_authorization_header:
    'The Authorization header must be exactly `Bearer <token>`, with one space and no quotes.',
  token_env_var_unset:
    'The token is empty or the literal text "undefined": the environment variable holding it is probably unset in your client.',
  invalid_token_format:
    `A token is the prefix and an underscore followed by exactly ${TOKEN_SECRET_HEX_CHARS} hexadecimal characters. Check that it was copied whole.`,
  unknown_token: 'This token is revoked or does not exist (was it truncated?). Create a new one.',
  not_a_workspace_member:
    "The token is valid but its user is no longer a member of the token's workspace. Ask an owner to add the user back, or use another token.",
};

export function problemTypeUrl(publicUrl: string, name: string): string {
  return `${publicUrl}/problems/${name}`;
}

/** The problem document of `err` (RFC 9457 and the spec's `error` member): an HTTP answer's body, or an MCP tool error's text. */
export function problemBody(publicUrl: string, err: AppError, instance?: string, requestId?: string) {
  const t = PROBLEM_TYPES[err.code];
  return {
    type: problemTypeUrl(publicUrl, err.code),
    title: t.title,
    status: t.status,
    ...(err.detail && err.detail !== t.title ? { detail: err.detail } : {}),
    ...(instance ? { instance } : {}),
    ...(requestId ? { requestId } : {}),
    error: t.title,
    ...err.extensions,
  };
}

/**
 * `instance` is the request path with the webhook token masked: senders print
 * error bodies into CI logs, and the token is the webhook's only secret.
 */
export function problemResponse(c: Context, publicUrl: string, err: AppError): Response {
  const body = problemBody(publicUrl, err, maskPath(new URL(c.req.url).pathname), c.get('requestId'));
  c.set('problemCode', err.code); // for the webhook metrics' refusal reason
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  const retryAfter = err.extensions.retryAfter;
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  // newResponse keeps the headers already set on the context (the RateLimit-* headers).
  return c.newResponse(JSON.stringify(body), body.status as ContentfulStatusCode, headers);
}

/**
 * An HTTPException thrown by Hono itself (the JSON body reader, the OpenAPI
 * routes' media-type gate) as the problem it stands for. Every status becomes a
 * problem document with that status, never a 500: a status without a problem
 * type of its own gets RFC 9457's `about:blank` with the status text as title.
 */
export function httpExceptionResponse(c: Context, publicUrl: string, err: HTTPException): Response {
  const code = problemCodeOfStatus(err.status, err.message);
  if (code) {
    // Hono's texts ("Unsupported Media Type") only repeat the title; ours say what to send.
    const detail = code === 'unsupported-content-type' ? unsupportedContentType(c.req.header('content-type')).detail : code === 'internal' ? undefined : err.message;
    return problemResponse(c, publicUrl, new AppError(code, detail));
  }
  const title = STATUS_TEXT.get(err.status) ?? `HTTP ${err.status}`;
  // A server-side status says nothing internal; a client-side one says what Hono saw.
  const detail = err.status < 500 && err.message ? { detail: err.message } : {};
  const body = { type: 'about:blank', title, status: err.status, ...detail, instance: maskPath(new URL(c.req.url).pathname), error: title };
  return c.newResponse(JSON.stringify(body), err.status, { 'content-type': 'application/problem+json' });
}

function problemCodeOfStatus(status: number, message: string): ErrorCode | null {
  switch (status) {
    case 400:
      // Hono's JSON reader says "Malformed JSON in request body"; its other 400s are about the body too.
      return /json/i.test(message) ? 'malformed-json' : 'invalid-body';
    case 404:
      return 'not-found';
    case 413:
      return 'payload-too-large';
    case 415:
      return 'unsupported-content-type';
    case 429:
      return 'rate-limited';
    case 500:
      return 'internal';
    default:
      return null;
  }
}

const STATUS_TEXT: ReadonlyMap<number, string> = new Map([
  [401, 'Unauthorized'],
  [403, 'Forbidden'],
  [405, 'Method Not Allowed'],
  [406, 'Not Acceptable'],
  [408, 'Request Timeout'],
  [409, 'Conflict'],
  [411, 'Length Required'],
  [412, 'Precondition Failed'],
  [416, 'Range Not Satisfiable'],
  [422, 'Unprocessable Content'],
  [501, 'Not Implemented'],
  [502, 'Bad Gateway'],
  [503, 'Service Unavailable'],
  [504, 'Gateway Timeout'],
]);

export function authFailureResponse(publicUrl: string, err: AuthError): Response {
  const body = {
    error: 'Unauthorized',
    reason: err.reason,
    message: AUTH_MESSAGES[err.reason],
    docs: problemTypeUrl(publicUrl, err.reason),
  };
  return new Response(JSON.stringify(body), {
    status: 401,
    headers: {
      'content-type': 'application/json',
      'www-authenticate': `Bearer realm="alertbridge", error="invalid_token", error_description="${err.reason}"`,
    },
  });
}
