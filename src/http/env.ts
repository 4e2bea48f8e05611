import type { ErrorCode } from '../domain/errors.js';
import type { Principal } from '../domain/tokens.js';
import type { Logger } from '../lib/logger.js';
import type { RateDecision } from '../domain/rate-limiter.js';
import type { HttpDeps } from './deps.js';

/** Typed Hono context: dependencies are injected per app, never imported as singletons. */
export interface AppEnv {
  Variables: {
    services: HttpDeps;
    principal: Principal;
    /** The read API's rate-limit decision for this request (src/http/auth.ts): a plainJson answer carries its headers itself. */
    rate: RateDecision;
    /** The request's X-Request-Id (src/http/middleware/request-id.ts). */
    requestId: string;
    /** The request's child logger, created on first use by requestLogger(c). */
    log: Logger;
    /** The problem type of an error answer (set by problemResponse; read by the metrics). */
    problemCode: ErrorCode;
  };
}
