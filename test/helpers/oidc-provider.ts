import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

/** A person at the test identity provider. */
export interface TestIdentity {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  /** Who the next sign-in at the provider is (its login step finishes as this `sub`, without a form). */
  nextLogin: string;
  accounts: Map<string, TestIdentity>;
  /** The bodies of the provider's own outgoing requests (back-channel logout tokens). */
  sent: string[];
  provider(): Provider;
  /** Registers the relying party (its callback and back-channel logout URIs are known once the dashboard listens). */
  register(publicUrl: string): Promise<void>;
  close(): Promise<void>;
}

export const CLIENT_ID = 'alertbridge';
export const CLIENT_SECRET = 'test-client-secret-0123456789';

/**
 * A real OpenID provider (panva's oidc-provider, a certified implementation) on a loopback port in
 * the test process. Its login and consent steps finish at once as `nextLogin`: tests drive the real
 * redirects, codes, tokens and keys, not a form.
 */
export async function startTestProvider(): Promise<TestProvider> {
  let provider: Provider | undefined;
  const server = http.createServer((req, res) => {
    if (!provider) {
      res.statusCode = 503;
      res.end();
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      void finishInteraction(provider, t, req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    void provider.callback()(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

  const t: TestProvider = {
    issuer,
    nextLogin: 'alice',
    accounts: new Map(),
    sent: [],
    provider: () => provider!,
    register: async (publicUrl) => {
      const configuration: Configuration = {
        clients: [
          {
            client_id: CLIENT_ID,
            client_secret: CLIENT_SECRET,
            redirect_uris: [`${publicUrl}/auth/oidc/callback`],
            post_logout_redirect_uris: [`${publicUrl}/sign-in`],
            backchannel_logout_uri: `${publicUrl}/auth/oidc/backchannel-logout`,
            backchannel_logout_session_required: true,
          },
        ],
        jwks: { keys: [jwk as never] },
        cookies: { keys: ['test-cookie-key'] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
        conformIdTokenClaims: false,
        // Its SSRF guard refuses loopback; the relying party here is on 127.0.0.1.
        fetch: ((url: string, options: RequestInit & { dispatcher?: unknown }) => {
          if (typeof options.body === 'string' || options.body instanceof URLSearchParams) t.sent.push(String(options.body));
          return fetch(url, { ...options, dispatcher: undefined } as RequestInit);
        }) as never,
        features: { devInteractions: { enabled: false }, backchannelLogout: { enabled: true }, rpInitiatedLogout: { enabled: true } },
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, ...t.accounts.get(sub) }) }),
        loadExistingGrant: async (ctx) => {
          const session = ctx.oidc.session;
          if (!session?.accountId || !ctx.oidc.client) return undefined;
          const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: session.accountId });
          grant.addOIDCScope('openid email profile groups');
          await grant.save();
          return grant;
        },
      };
      provider = new Provider(issuer, configuration);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return t;
}

async function finishInteraction(provider: Provider, t: TestProvider, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: t.nextLogin } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
  grant.addOIDCScope('openid email profile groups');
  await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
}

/** Follows the provider's redirects with its own cookie jar until it sends the browser back to `publicUrl`; returns that URL. */
export async function throughProvider(start: string, publicUrl: string, jar = new Map<string, string>()): Promise<string> {
  let url = start;
  for (let hops = 0; hops < 12; hops++) {
    if (url.startsWith(publicUrl)) return url;
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      jar.set(pair!.slice(0, i).trim(), pair!.slice(i + 1));
    }
    const location = res.headers.get('location');
    await res.arrayBuffer();
    if (!location) throw new Error(`the provider stopped at ${res.status} on ${new URL(url).pathname}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}
