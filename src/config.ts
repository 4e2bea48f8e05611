import path from 'node:path';
import { z } from 'zod';
import { ssoConfig, ssoEnvIssues, ssoEnvShape, type SsoConfig } from './config-sso.js';

/**
 * The whole configuration, parsed once from the environment. Nothing else in
 * src/ reads process.env: everything receives this frozen object.
 */
const bool = z
  .enum(['0', '1', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  // Where attachments live; default DATA_DIR/media. Several nodes share one directory (NFS): docs/cluster.md.
  MEDIA_DIR: z.string().min(1).optional(),
  // Cluster mode (docs/cluster.md): unset = the SQLite file in DATA_DIR, as always.
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// (or postgresql://) URL; unset it to use the SQLite file in DATA_DIR')
    .optional(),
  // Connections each node keeps in its pool (besides its three dedicated ones: LISTEN, the leader lock, Idempotency-Key claims).
  PG_POOL_MAX: z.coerce.number().int().min(2).max(1000).default(10),
  PUBLIC_URL: z.string().url().optional(),
  MEDIA_PUBLIC_URL: z.string().url().optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  WEBHOOK_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(6000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BOOTSTRAP: bool.default(true),
  TOKEN_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, 'lower-case letters and digits, 2-16 characters')
    .default('ab'),
  // Attachments
  ATTACHMENT_FETCH_ALLOW_PRIVATE: bool.default(false),
  PUSH_ALLOW_PRIVATE: bool.default(false),
  // Outbound routes (docs/routes.md): loopback and private targets (tests only), the key sealing their secrets, the give-up age.
  ROUTES_ALLOW_PRIVATE: bool.default(false),
  SECRETS_KEY: z.string().optional(),
  ROUTE_GIVE_UP_HOURS: z.coerce.number().positive().max(720).default(24),
  ATTACHMENT_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  // Actor avatars: copied into the media store (off: no outbound request for avatars, cards show initials);
  // the public avatar service for actors known by e-mail (Gravatar-style, by hashed e-mail), empty disables it.
  AVATAR_FETCH: bool.default(true),
  AVATAR_BASE_URL: z.string().default('https://www.gravatar.com/avatar'),
  AVATAR_TIMEOUT_MS: z.coerce.number().int().min(50).default(2_000),
  // Discord bridge
  DISCORD_TOKEN: z.string().optional(),
  DISCORD_API_URL: z.string().url().optional(),
  // E-mail
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Alertbridge <alertbridge@localhost>'),
  // Operations: scheduled backups (0 = off) and how long unreferenced media outlive their last alert.
  // At most 24 days: a longer timer delay overflows Node's 32-bit setTimeout and fires at once.
  BACKUP_INTERVAL_HOURS: z.coerce.number().min(0).max(576).default(0),
  BACKUP_KEEP: z.coerce.number().int().min(1).default(7),
  MEDIA_ORPHAN_GRACE_HOURS: z.coerce.number().min(0).default(24),
  // Dashboard: believe X-Forwarded-For/-Proto (only behind a proxy that sets them).
  TRUST_PROXY: bool.default(false),
  // The first-run owner's e-mail; unset: a placeholder the dashboard asks to replace at the first sign-in.
  BOOTSTRAP_OWNER_EMAIL: z.string().email().optional(),
  // How long an invitation link works (an admin may re-issue it); at most a year.
  INVITATION_TTL_HOURS: z.coerce.number().positive().max(8760).default(168),
  // Operations
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  MEDIA_FREE_SPACE_RESERVE_MB: z.coerce.number().int().min(0).default(100),
  METRICS: bool.default(false),
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  // Retention passes (settings per channel and workspace in the database); at most 24 days (setTimeout's range).
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(100).max(2_073_600_000).default(60_000),
  // Single sign-on (docs/sso.md)
  ...ssoEnvShape,
}).refine((e) => !(e.DATABASE_URL && e.MEDIA_ORPHAN_GRACE_HOURS === 0), {
  // Nodes share MEDIA_DIR: a file deleted at release could be the one another node's upload has
  // just linked and is about to commit. The grace period is what makes that impossible.
  message: 'must be above 0 with DATABASE_URL: nodes share MEDIA_DIR, and only a grace period keeps a file another node is uploading',
  path: ['MEDIA_ORPHAN_GRACE_HOURS'],
}).superRefine((e, ctx) => {
  for (const i of ssoEnvIssues(e)) ctx.addIssue({ code: 'custom', path: [i.path], message: i.message });
});

export type Env = Record<string, string | undefined>;

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly dbFile: string;
  /** PostgreSQL instead of `dbFile` when set (cluster mode: docs/cluster.md). */
  readonly databaseUrl: string | undefined;
  /** The PostgreSQL pool's size per node (PG_POOL_MAX). */
  readonly pgPoolMax: number;
  readonly mediaDir: string;
  readonly publicUrl: string;
  readonly mediaPublicUrl: string;
  readonly rateLimitPerMinute: number;
  readonly webhookRateLimitPerMinute: number;
  readonly logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  readonly bootstrap: boolean;
  readonly tokenPrefix: string;
  readonly attachmentFetchAllowPrivate: boolean;
  /** Web Push endpoints may be private or loopback addresses (tests only). */
  readonly pushAllowPrivate: boolean;
  readonly routesAllowPrivate: boolean;
  /** SECRETS_KEY as given (src/lib/secret-box.ts parses it); undefined: DATA_DIR/secrets.key. */
  readonly secretsKey: string | undefined;
  readonly routeGiveUpMs: number;
  readonly attachmentFetchTimeoutMs: number;
  /** Copy actors' pictures into the media store at all. */
  readonly avatarFetch: boolean;
  readonly avatarBaseUrl: string;
  readonly avatarTimeoutMs: number;
  readonly discordToken: string | undefined;
  readonly discordApiUrl: string | undefined;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  /** 0 = no scheduled backups. */
  readonly backupIntervalMs: number;
  readonly backupKeep: number;
  readonly backupDir: string;
  readonly mediaOrphanGraceMs: number;
  readonly trustProxy: boolean;
  readonly bootstrapOwnerEmail: string | undefined;
  /** How long an invitation link works (INVITATION_TTL_HOURS). */
  readonly invitationTtlMs: number;
  readonly shutdownTimeoutMs: number;
  /** Uploads that would leave less free space than this on the data volume are refused (503). */
  readonly mediaFreeSpaceReserveBytes: number;
  readonly metrics: boolean;
  readonly metricsToken: string | undefined;
  readonly retentionIntervalMs: number;
  /** OpenID Connect and the authenticating proxy (docs/sso.md). */
  readonly sso: SsoConfig;
}

export class ConfigError extends Error {}

export function loadConfig(env: Env = process.env): Config {
  // Empty strings mean "unset" so `PORT= npm start` behaves like no PORT at all,
  // except where empty is a meaningful choice (AVATAR_BASE_URL= turns lookups off).
  const KEEP_EMPTY = new Set(['AVATAR_BASE_URL']);
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => v !== undefined && (v !== '' || KEEP_EMPTY.has(k))));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const publicUrl = stripSlash(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`);
  const dataDir = path.resolve(e.DATA_DIR);
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    dbFile: path.join(dataDir, 'alertbridge.db'),
    databaseUrl: e.DATABASE_URL,
    pgPoolMax: e.PG_POOL_MAX,
    mediaDir: e.MEDIA_DIR ? path.resolve(e.MEDIA_DIR) : path.join(dataDir, 'media'),
    publicUrl,
    mediaPublicUrl: stripSlash(e.MEDIA_PUBLIC_URL ?? `${publicUrl}/media`),
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    webhookRateLimitPerMinute: e.WEBHOOK_RATE_LIMIT_PER_MINUTE,
    logLevel: e.LOG_LEVEL,
    bootstrap: e.BOOTSTRAP,
    tokenPrefix: e.TOKEN_PREFIX,
    attachmentFetchAllowPrivate: e.ATTACHMENT_FETCH_ALLOW_PRIVATE,
    pushAllowPrivate: e.PUSH_ALLOW_PRIVATE,
    routesAllowPrivate: e.ROUTES_ALLOW_PRIVATE,
    secretsKey: e.SECRETS_KEY,
    routeGiveUpMs: e.ROUTE_GIVE_UP_HOURS * 3_600_000,
    attachmentFetchTimeoutMs: e.ATTACHMENT_FETCH_TIMEOUT_MS,
    avatarFetch: e.AVATAR_FETCH,
    avatarBaseUrl: stripSlash(e.AVATAR_BASE_URL),
    avatarTimeoutMs: e.AVATAR_TIMEOUT_MS,
    discordToken: e.DISCORD_TOKEN,
    discordApiUrl: e.DISCORD_API_URL ? stripSlash(e.DISCORD_API_URL) : undefined,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    backupIntervalMs: e.BACKUP_INTERVAL_HOURS * HOUR_MS,
    backupKeep: e.BACKUP_KEEP,
    backupDir: path.join(dataDir, 'backups'),
    mediaOrphanGraceMs: e.MEDIA_ORPHAN_GRACE_HOURS * HOUR_MS,
    trustProxy: e.TRUST_PROXY,
    bootstrapOwnerEmail: e.BOOTSTRAP_OWNER_EMAIL,
    invitationTtlMs: e.INVITATION_TTL_HOURS * HOUR_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    mediaFreeSpaceReserveBytes: e.MEDIA_FREE_SPACE_RESERVE_MB * 1024 * 1024,
    metrics: e.METRICS,
    metricsToken: e.METRICS_TOKEN,
    retentionIntervalMs: e.RETENTION_INTERVAL_MS,
    sso: ssoConfig(e),
  };
  return Object.freeze(config);
}

const HOUR_MS = 60 * 60 * 1000;

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
