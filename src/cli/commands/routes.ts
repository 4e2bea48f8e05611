import type { AlertLevel } from '../../domain/alert-rows.js';
import { ROUTE_EVENTS, ROUTE_KINDS, type RouteEvent, type RouteKind, type RouteTarget } from '../../domain/routes/route-kinds.js';
import type { FieldMatch } from '../../domain/routes/route-rows.js';
import type { RouteInput } from '../../domain/routes/routes.js';
import { UsageError, choiceFlag, defineCommand, wholeNumberFlag, type Command } from '../command.js';

const LEVELS: readonly AlertLevel[] = ['INFO', 'SUCCESS', 'WARNING', 'ERROR'];

/** Which target flags each kind takes (docs/routes.md). */
const TARGET_FLAGS: Record<RouteKind, readonly (keyof typeof TARGET_FLAG_NAMES)[]> = {
  slack: ['url'], discord: ['url'], teams: ['url'], webhook: ['url', 'secret'],
  ntfy: ['url', 'token'], telegram: ['bot-token', 'chat-id', 'api-url'], matrix: ['url', 'access-token', 'room'],
};
const TARGET_FLAG_NAMES = {
  url: 'url', token: 'token', secret: 'secret', 'bot-token': 'botToken', 'chat-id': 'chatId', 'api-url': 'apiUrl', 'access-token': 'accessToken', room: 'room',
} as const satisfies Record<string, keyof RouteTarget>;

const targetFlags = {
  url: { type: 'string', value: 'URL' },
  token: { type: 'string', value: 'T' },
  secret: { type: 'string', value: 'whsec_…' },
  'bot-token': { type: 'string', value: 'T' },
  'chat-id': { type: 'string', value: 'C' },
  'api-url': { type: 'string', value: 'URL' },
  'access-token': { type: 'string', value: 'T' },
  room: { type: 'string', value: 'R' },
} as const;
const filterFlags = {
  'min-level': { type: 'string', value: 'L' },
  events: { type: 'string', value: 'opened,updated,acknowledged,resolved' },
  source: { type: 'string', value: 'S' },
  field: { type: 'string', value: 'label=value', multiple: true },
  rate: { type: 'string', value: 'PER_MINUTE' },
} as const;

type TargetValues = { [K in keyof typeof targetFlags]: string | undefined };
type FilterValues = { 'min-level': string | undefined; events: string | undefined; source: string | undefined; field: string[]; rate: string | undefined };

/** The target from its flags; null when none is given (update keeps the stored one). A flag of another kind is a usage error. */
function targetOf(kind: RouteKind, f: TargetValues): RouteTarget | null {
  const given = (Object.keys(targetFlags) as (keyof TargetValues)[]).filter((name) => f[name] !== undefined);
  const foreign = given.find((name) => !TARGET_FLAGS[kind].includes(name));
  if (foreign) throw new UsageError(`--${foreign} does not apply to a ${kind} route (it takes ${TARGET_FLAGS[kind].map((n) => `--${n}`).join(', ')})`);
  if (given.length === 0) return null;
  const target: RouteTarget = {};
  for (const name of given) target[TARGET_FLAG_NAMES[name]] = f[name];
  return target;
}

function filtersOf(f: FilterValues): RouteInput {
  const input: RouteInput = {};
  if (f['min-level'] !== undefined) input.minLevel = choiceFlag('min-level', f['min-level'].toUpperCase(), LEVELS);
  if (f.events !== undefined) {
    input.events = f.events.split(',').map((e) => e.trim()).filter(Boolean).map((e) => {
      const event = ROUTE_EVENTS.find((known) => known === e || known === `alert.${e}`);
      if (!event) throw new UsageError(`--events takes opened, updated, acknowledged, resolved (comma-separated), not "${e}"`);
      return event satisfies RouteEvent;
    });
    if (input.events.length === 0) throw new UsageError('--events needs at least one event');
  }
  if (f.source !== undefined) input.source = f.source === '' ? null : f.source;
  if (f.field.length > 0) {
    input.fields = f.field.map((pair): FieldMatch => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new UsageError(`--field takes label=value, not "${pair}"`);
      return { label: pair.slice(0, at), value: pair.slice(at + 1) };
    });
  }
  if (f.rate !== undefined) input.ratePerMinute = wholeNumberFlag('rate', f.rate, 600);
  return input;
}

/** Outbound routes (issue 27, docs/routes.md): JSON out, targets never printed back (only masked). */
export const routeCommands: Command[] = [
  defineCommand({
    name: 'route create',
    summary: 'forward a channel\'s alerts to slack, discord, teams, telegram, matrix, ntfy or a signed webhook; prints {"id","secret"} (the webhook secret, shown once)',
    flags: { channel: { type: 'string', value: 'C', required: true }, kind: { type: 'string', value: ROUTE_KINDS.join('|'), required: true }, ...targetFlags, ...filterFlags },
    run: async (ctx, f) => {
      const kind = choiceFlag('kind', f.kind, ROUTE_KINDS);
      const target = targetOf(kind, f);
      if (!target) throw new UsageError(`a ${kind} route needs ${TARGET_FLAGS[kind].filter((n) => n !== 'secret' && n !== 'token' && n !== 'api-url').map((n) => `--${n}`).join(', ')}`);
      const channel = await (await ctx.accounts()).requireChannel(f.channel);
      return (await ctx.routes()).create(channel.id, kind, target, filtersOf(f));
    },
  }),
  defineCommand({
    name: 'route list',
    summary: "list routes (all, or a channel's), targets masked",
    flags: { channel: { type: 'string', value: 'C' } },
    run: async (ctx, f) => {
      const channelId = f.channel === undefined ? undefined : (await (await ctx.accounts()).requireChannel(f.channel)).id;
      return { routes: await (await ctx.routes()).list(channelId) };
    },
  }),
  defineCommand({
    name: 'route update',
    summary: 'change a route\'s filters or target (target flags replace the whole target), or --pause / --resume it',
    flags: { id: { type: 'string', value: 'R', required: true }, ...targetFlags, ...filterFlags, pause: { type: 'boolean' }, resume: { type: 'boolean' } },
    run: async (ctx, f) => {
      if (f.pause && f.resume) throw new UsageError('give --pause or --resume, not both');
      const routes = await ctx.routes();
      const route = await routes.require(f.id);
      const target = targetOf(route.kind, f);
      return routes.update(f.id, { ...filtersOf(f), ...(target ? { target } : {}), ...(f.pause ? { state: 'paused' as const } : f.resume ? { state: 'active' as const } : {}) });
    },
  }),
  defineCommand({
    name: 'route delete',
    summary: 'delete a route and its delivery history',
    flags: { id: { type: 'string', value: 'R', required: true } },
    run: async (ctx, f) => (await ctx.routes()).remove(f.id),
  }),
  defineCommand({
    name: 'route test',
    summary: "send a sample alert through a route and print the receiver's answer",
    flags: { id: { type: 'string', value: 'R', required: true } },
    run: async (ctx, f) => (await ctx.routes()).test(f.id),
  }),
];
