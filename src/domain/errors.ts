/**
 * Domain errors carry a stable code and no HTTP: src/http/problems.ts is the one
 * place that maps a code to a status and an RFC 9457 problem document.
 */
export type ErrorCode =
  | 'invalid-payload'
  | 'malformed-json'
  | 'unsupported-content-type'
  | 'payload-too-large'
  | 'unknown-token'
  | 'idempotency-key-in-use'
  | 'idempotency-key-reused'
  | 'invalid-idempotency-key'
  | 'workflow-run-finished'
  | 'channel-is-chat-connected'
  | 'invalid-query'
  | 'invalid-body'
  | 'not-found'
  | 'forbidden'
  | 'read-only-token'
  | 'slug-taken'
  | 'email-taken'
  | 'discord-link-taken'
  | 'rate-limited'
  | 'unsupported-attachment-type'
  | 'attachment-type-mismatch'
  | 'attachment-too-large'
  | 'too-many-attachments'
  | 'attachment-fetch-failed'
  | 'storage-unavailable'
  | 'invalid-signature'
  | 'internal';

/** One validation issue, in the shape the spec's 400 `details` uses. */
export interface ValidationIssue {
  code: string;
  message: string;
  path: (string | number)[];
  [extra: string]: unknown;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    /** Human explanation of this occurrence (the problem's `detail`). */
    readonly detail?: string,
    /** Extra members for the problem document (for example `details`). */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail ?? code);
    this.name = 'AppError';
  }
}

export const notFound = (what = 'resource') => new AppError('not-found', `${what} not found`);

/** The read API's 401 reasons (spec: Errors, Read API); the OpenAPI enum and the problem pages list these. */
export const AUTH_FAILURE_REASONS = [
  'no_credentials',
  'malformed_authorization_header',
  'token_env_var_unset',
  'invalid_token_format',
  'unknown_token',
  'not_a_workspace_member',
] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

export class AuthError extends Error {
  constructor(readonly reason: AuthFailureReason) {
    super(reason);
    this.name = 'AuthError';
  }
}
