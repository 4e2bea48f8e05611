import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { isChannelSlug, slugify } from '../../domain/channel-slug.js';
import { AppError } from '../../domain/errors.js';
import { NOTIFY_LEVELS, type NotifyLevel } from '../../domain/notification-preferences.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { audit, requireRecentSignIn } from '../http/guards.js';
import { formOf, isManager, requireRole, requireSession } from '../http/session.js';
import { SIGNING_SECRET_MAX_CHARS, SIGNING_SECRET_MIN_CHARS } from '../../domain/formats/github-body.js';
import { channelSettingsPage, channelsPage, type FieldErrors, type SettingsExtra } from '../pages/channels.js';
import type { ChannelRecord } from '../ports.js';
import { botInviteUrl } from '../pages/channel-discord.js';
import { redirectWithFlash } from '../http/flash.js';
import { freeSlug } from '../http/suggest.js';
import { channelPrivacyRoutes } from './channel-privacy.js';
import { channelRouteRoutes } from './channel-routes.js';
import { channelEscalationRoutes, escalationView } from './channel-escalation.js';

const MANAGERS = ['owner', 'admin'] as const;

/** The CLI's rules, as field errors: name 1-100, slug lower-case/digits/dashes, icon one short emoji. */
export const channelFormSchema = z.object({
  name: z.string().trim().min(1, 'Give the channel a name').max(100, 'At most 100 characters'),
  slug: z
    .string()
    .trim()
    .refine((s) => s === '' || isChannelSlug(s), 'Lower-case letters, digits and dashes (leave empty to derive it from the name)')
    .transform((s) => s || undefined),
  icon: z
    .string()
    .trim()
    .max(16, 'One emoji')
    .refine((s) => s === '' || /\p{Extended_Pictographic}/u.test(s), 'One emoji, for example 🚀')
    .transform((s) => s || undefined),
  isPrivate: z.boolean(),
});

const LEVEL_WORDS: Record<NotifyLevel, string> = { all: 'every alert', important: 'warnings and errors only', none: 'none' };

const errorsOf = (e: z.ZodError): FieldErrors => Object.fromEntries(e.issues.map((i) => [String(i.path[0]), i.message]));

export function channelRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const base = deps.services.config.publicUrl;
  r.use('/channels', requireSession(deps));
  r.use('/channels/*', requireSession(deps));

  const list = (c: Context<DashEnv>) => deps.accounts.visibleChannels(requireRole(c).id, c.get('viewer').id);

  /** A channel the viewer can see (a private one they are not in is "not found", as in the API). */
  const visibleChannel = async (c: Context<DashEnv>): Promise<ChannelRecord | undefined> => {
    const id = c.req.param('id');
    return (await list(c)).find((ch) => ch.id === id);
  };

  /** The first of `slug-2`, `slug-3`, … no channel of the workspace uses (private ones included: the slug index is the workspace's). */
  const freeChannelSlug = async (workspaceId: string, slug: string) => {
    const taken: string[] = [slug];
    for (;;) {
      const candidate = freeSlug(slug, taken);
      if (!(await deps.accounts.slugTaken(workspaceId, candidate))) return candidate;
      taken.push(candidate);
    }
  };

  /** The connection, and for a manager of an unconnected channel the channels the bot sees that no channel mirrors yet. */
  const discordView = async (channelId: string, manager: boolean) => {
    const status = await deps.accounts.discordStatus(channelId);
    const all = manager && !status.connected ? deps.services.discordDirectory.servers() : null;
    const taken = all ? new Set((await deps.services.discordLinks.list()).map((l) => l.discordChannelId)) : new Set<string>();
    const servers = all?.map((s) => ({ ...s, channels: s.channels.filter((ch) => !taken.has(ch.id)) })) ?? null;
    return { status, inviteUrl: botInviteUrl(deps.services.config.discordToken), botRunning: Boolean(deps.services.config.discordToken), servers };
  };

  const settings = async (c: Context<DashEnv>, ch: ChannelRecord, extra: SettingsExtra = {}) => {
    const ws = requireRole(c);
    const level = (await deps.services.notifyPrefs.recipient(ch.id, c.get('viewer').id))?.level ?? 'none';
    return channelSettingsPage(c, {
      channel: ch,
      publicUrl: base,
      level,
      members: ch.isPrivate ? await deps.accounts.channelMembers(ch.id) : [],
      workspaceMembers: await deps.accounts.listMembers(ws.id),
      discord: await discordView(ch.id, isManager(ws.role)),
      signingSecretSet: isManager(ws.role) ? await deps.accounts.hasSigningSecret(ch.id) : undefined,
      escalation: isManager(ws.role) ? await escalationView(deps, ch.id) : undefined,
      heartbeats: { checks: await deps.services.heartbeats.checks.ofChannel(ch.id), now: deps.services.clock.now() },
      mailEnabled: deps.mailer !== null,
      routes: isManager(ws.role) ? { list: await deps.services.routes.routes.list(ch.id), unavailable: deps.services.routes.routes.unavailable } : undefined,
      ...extra,
    }, extra.errors ? 400 : 200);
  };

  r.get('/channels', async (c) => channelsPage(c, { channels: await list(c) }));

  r.post('/channels', async (c) => {
    const ws = requireRole(c, MANAGERS);
    const form = await formOf(c);
    const parsed = channelFormSchema.safeParse({ name: form.name ?? '', slug: form.slug ?? '', icon: form.icon ?? '', isPrivate: form.private === 'on' });
    if (!parsed.success) return channelsPage(c, { channels: await list(c), errors: errorsOf(parsed.error), values: form }, 400);
    let ch: ChannelRecord;
    try {
      ch = await deps.accounts.createChannel({ workspaceId: ws.id, ...parsed.data });
    } catch (err) {
      // A taken slug is the form's error with a free one offered, never the other channel's id.
      if (err instanceof AppError && err.code === 'slug-taken') {
        const slug = parsed.data.slug ?? slugify(parsed.data.name);
        const suggestion = await freeChannelSlug(ws.id, slug);
        const error = `Another channel uses “${slug}”. Try “${suggestion}”${parsed.data.slug ? '' : ', or change the name'}.`;
        return channelsPage(c, { channels: await list(c), errors: { slug: error }, values: { ...form, slug: form.slug || suggestion } }, 409);
      }
      throw err;
    }
    // The creator of a private channel is its first member, or they would lock themselves out.
    if (ch.isPrivate) await deps.accounts.addChannelMember(ch.id, c.get('viewer').id);
    await audit(c, deps, 'channel.created', `${ch.name} (${ch.id})`);
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `Channel “${ch.name}” created. Post alerts to its webhook URL below.` });
  });

  r.get('/channels/:id', async (c) => {
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    return settings(c, ch);
  });

  // The webhook URL is a secret, shown only on request (htmx fragment or this page). Anyone who can see the
  // channel may reveal it: GET /api/channels gives a member's own token the same webhookToken (docs/security.md).
  r.get('/channels/:id/webhook', async (c) => {
    requireRole(c);
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    return settings(c, ch, { reveal: true });
  });

  r.post('/channels/:id/rotate', async (c) => {
    requireRole(c, MANAGERS);
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    const form = await formOf(c);
    if (form.confirm !== 'on') return settings(c, ch, { errors: { confirm: 'Tick the box to confirm: the current URL stops working at once' } });
    await requireRecentSignIn(c, deps, form);
    await deps.accounts.rotateWebhook(ch.id);
    await audit(c, deps, 'channel.webhook-rotated', `${ch.name} (${ch.id})`);
    // Post/Redirect/Get: a reload of the page shows the new URL's settings, it never rotates again.
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `Webhook URL of “${ch.name}” rotated. The old URL now answers 404.`, revealWebhook: true });
  });

  r.post('/channels/:id/settings', async (c) => {
    requireRole(c, MANAGERS);
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    const form = await formOf(c);
    const parsed = channelFormSchema.pick({ name: true, icon: true }).safeParse({ name: form.name ?? '', icon: form.icon ?? '' });
    if (!parsed.success) return settings(c, ch, { errors: errorsOf(parsed.error), values: form });
    await deps.accounts.updateChannel(ch.id, parsed.data);
    await audit(c, deps, 'channel.changed', `${parsed.data.name} (${ch.id})`);
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `Channel “${parsed.data.name}” saved.` });
  });

  r.post('/channels/:id/notifications', async (c) => {
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    const level = (await formOf(c)).level as NotifyLevel;
    if (!NOTIFY_LEVELS.includes(level)) return settings(c, ch, { errors: { level: 'Choose all, important or none' } });
    await deps.services.notifyPrefs.set(c.get('viewer').id, ch.id, level);
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `E-mail for “${ch.name}”: ${LEVEL_WORDS[level]}.` });
  });

  r.post('/channels/:id/members', async (c) => {
    requireRole(c, MANAGERS);
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    const form = await formOf(c);
    const ws = requireRole(c);
    const user = (await deps.accounts.listMembers(ws.id)).find((m) => m.id === form.user);
    if (!ch.isPrivate || !user) return settings(c, ch, { errors: { user: 'Choose a member of this workspace' } });
    if (form.action === 'remove') {
      await deps.accounts.removeChannelMember(ch.id, user.id);
      await audit(c, deps, 'channel.member-removed', `${user.email} from ${ch.name}`);
      return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `${user.name} removed from “${ch.name}”.` });
    }
    await deps.accounts.addChannelMember(ch.id, user.id);
    await audit(c, deps, 'channel.member-added', `${user.email} to ${ch.name}`);
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `${user.name} added to “${ch.name}”.` });
  });

  r.post('/channels/:id/discord', async (c) => {
    requireRole(c, MANAGERS);
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    // A typed id (the fallback under the list) wins over the list's choice.
    const form = await formOf(c);
    const id = (form.discord_channel_id ?? '').trim() || (form.discord_channel ?? '').trim();
    if (id === '') return settings(c, ch, { errors: { discord_channel: 'Choose a Discord channel, or paste its id' } });
    try {
      await deps.accounts.connectDiscord(ch.id, id);
    } catch (err) {
      // The domain's rule (a snowflake; one Discord channel feeds one channel) becomes the field's error.
      if (err instanceof AppError && err.code === 'invalid-body') return settings(c, ch, { errors: { discord_channel: err.detail }, values: { discord_channel: id } });
      throw err;
    }
    await audit(c, deps, 'channel.discord-connected', `${ch.name} ← Discord ${id.trim()}`);
    const server = deps.services.discordDirectory.servers()?.find((s) => s.channels.some((d) => d.id === id));
    const named = server ? `#${server.channels.find((d) => d.id === id)!.name} on ${server.name}` : id;
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `“${ch.name}” now mirrors Discord channel ${named}.` });
  });

  r.post('/channels/:id/discord/disconnect', async (c) => {
    requireRole(c, MANAGERS);
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    await deps.accounts.disconnectDiscord(ch.id);
    await audit(c, deps, 'channel.discord-disconnected', ch.name);
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `“${ch.name}” disconnected from Discord. Its stored messages stay readable.` });
  });

  // GitHub's signing secret: set or replaced here (never shown back), removed below; the CLI stores it the same way.
  r.post('/channels/:id/signing-secret', async (c) => {
    requireRole(c, MANAGERS);
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    const secret = (await formOf(c)).signing_secret ?? '';
    if (secret.length < SIGNING_SECRET_MIN_CHARS || secret.length > SIGNING_SECRET_MAX_CHARS) {
      return settings(c, ch, { errors: { signing_secret: `Use ${SIGNING_SECRET_MIN_CHARS} to ${SIGNING_SECRET_MAX_CHARS} characters` } });
    }
    const replaced = await deps.accounts.hasSigningSecret(ch.id);
    await deps.accounts.setSigningSecret(ch.id, secret);
    await audit(c, deps, replaced ? 'channel.signing-secret-replaced' : 'channel.signing-secret-set', `${ch.name} (${ch.id})`);
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `Signing secret of “${ch.name}” ${replaced ? 'replaced' : 'saved'}.` });
  });

  r.post('/channels/:id/signing-secret/clear', async (c) => {
    requireRole(c, MANAGERS);
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    // Removing the check weakens the channel: a recent sign-in, as for rotating the webhook URL.
    await requireRecentSignIn(c, deps, await formOf(c));
    await deps.accounts.setSigningSecret(ch.id, null);
    await audit(c, deps, 'channel.signing-secret-cleared', `${ch.name} (${ch.id})`);
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `Signing secret of “${ch.name}” removed. GitHub deliveries are accepted unsigned.` });
  });

  r.post('/channels/:id/delete', async (c) => {
    requireRole(c, MANAGERS);
    const ch = await visibleChannel(c);
    if (!ch) return c.notFound();
    const form = await formOf(c);
    if ((form.confirm_name ?? '').trim() !== ch.name) {
      return settings(c, ch, { errors: { confirm_name: `Type the channel name, ${ch.name}, to delete it` } });
    }
    await deps.accounts.deleteChannel(ch.id);
    await audit(c, deps, 'channel.deleted', `${ch.name} (${ch.id})`);
    return redirectWithFlash(c, '/channels', { notice: `Channel “${ch.name}” deleted, with its alerts.` });
  });

  r.route('/', channelPrivacyRoutes(deps, { visibleChannel, settings }));
  r.route('/', channelRouteRoutes(deps));
  r.route('/', channelEscalationRoutes(deps, { visibleChannel, settings }));
  return r;
}
