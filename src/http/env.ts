import type { Principal } from '../domain/tokens.js';
import type { Services } from '../services.js';

/** Typed Hono context: dependencies are injected per app, never imported as singletons. */
export interface AppEnv {
  Variables: {
    services: Services;
    principal: Principal;
  };
}
