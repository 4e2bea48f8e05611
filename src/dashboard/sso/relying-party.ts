import type { JWTVerifyGetKey } from 'jose';
import type * as Oidc from 'openid-client';
import type { OidcConfig } from '../../config-sso.js';
import { groupsFrom, type ProvidedIdentity } from '../../domain/auth/sso/single-sign-on.js';

/** The values a sign-in carries from the button to the callback (sealed in a cookie, never stored). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  /** Set when a signed-in user links their account from the profile: that user's id. */
  linkUser?: string;
}

export interface SignedInIdentity extends ProvidedIdentity {
  sid: string | undefined;
}

/**
 * openid-client and jose (about 50 modules) are loaded at the first sign-in, not at start: most
 * installations never configure OIDC, and a configured one pays it once.
 */
const openidClient = () => import('openid-client');

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/**
 * The OpenID Connect relying party over openid-client (Authorization Code with PKCE, state and
 * nonce; openid-client checks the ID token's issuer, audience, expiry, nonce and signature from the
 * provider's JWKS). Discovery happens at the first sign-in and is retried while the provider is down.
 */
export class RelyingParty {
  private discovered: Promise<{ oidc: typeof Oidc; config: Oidc.Configuration }> | undefined;
  private jwks: JWTVerifyGetKey | undefined;

  constructor(
    readonly settings: OidcConfig,
    readonly redirectUri: string,
  ) {}

  private configuration(): Promise<{ oidc: typeof Oidc; config: Oidc.Configuration }> {
    if (!this.discovered) {
      const s = this.settings;
      const insecure = new URL(s.issuer).protocol === 'http:'; // loopback only (src/config-sso.ts)
      this.discovered = openidClient()
        .then(async (oidc) => {
          const auth = s.clientSecret ? oidc.ClientSecretBasic(s.clientSecret) : oidc.None();
          const config = await oidc.discovery(new URL(s.issuer), s.clientId, undefined, auth, {
            // openid-client skips the ID token's signature when it comes straight from the token endpoint
            // (OIDC Core 3.1.3.7 allows trusting TLS there); the issue asks for it to be checked against the JWKS.
            execute: insecure ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] : [oidc.enableNonRepudiationChecks],
            timeout: 10,
          });
          return { oidc, config };
        })
        .catch((err: unknown) => {
          this.discovered = undefined;
          throw err;
        });
    }
    return this.discovered;
  }

  /** Where to send the browser, and what to seal for the callback. */
  async start(next: string, linkUser?: string): Promise<{ url: string; pending: PendingSignIn }> {
    const { oidc, config } = await this.configuration();
    const pending: PendingSignIn = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), next, linkUser };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: this.settings.scopes,
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  /** Exchanges the code and validates the ID token; throws on any mismatch (state, nonce, signature, expiry). */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<SignedInIdentity> {
    const { oidc, config } = await this.configuration();
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: pending.verifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token');
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : undefined,
      emailVerified: claims.email_verified === true,
      name: typeof claims.name === 'string' ? claims.name.slice(0, 100) : undefined,
      groups: groupsFrom(claims[this.settings.groupsClaim]),
      sid: typeof claims.sid === 'string' ? claims.sid : undefined,
    };
  }

  /** The provider's end_session_endpoint for RP-initiated logout, or undefined when it has none (or is down). */
  async endSessionUrl(postLogoutRedirect: string): Promise<string | undefined> {
    try {
      const { oidc, config } = await this.configuration();
      if (!config.serverMetadata().end_session_endpoint) return undefined;
      return oidc.buildEndSessionUrl(config, { client_id: this.settings.clientId, post_logout_redirect_uri: postLogoutRedirect }).href;
    } catch {
      return undefined;
    }
  }

  /**
   * A back-channel logout token (OpenID Connect Back-Channel Logout 1.0, 2.6): signed by the
   * provider's key, for this client, with the logout event, a sub or sid, and no nonce.
   */
  async verifyLogoutToken(token: string): Promise<{ issuer: string; subject: string | undefined; sid: string | undefined }> {
    const { config } = await this.configuration();
    const meta = config.serverMetadata();
    if (!meta.jwks_uri) throw new Error('the provider publishes no keys');
    const { createRemoteJWKSet, jwtVerify } = await import('jose');
    this.jwks ??= createRemoteJWKSet(new URL(meta.jwks_uri));
    const { payload } = await jwtVerify(token, this.jwks, { issuer: meta.issuer, audience: this.settings.clientId, maxTokenAge: '5m', clockTolerance: 30 });
    const events = payload.events as Record<string, unknown> | undefined;
    if (!events || typeof events !== 'object' || !(BACKCHANNEL_EVENT in events)) throw new Error('not a logout token');
    if ('nonce' in payload) throw new Error('a logout token carries no nonce');
    const subject = typeof payload.sub === 'string' ? payload.sub : undefined;
    const sid = typeof payload.sid === 'string' ? payload.sid : undefined;
    if (!subject && !sid) throw new Error('a logout token names a sub or a sid');
    return { issuer: meta.issuer, subject, sid };
  }
}
