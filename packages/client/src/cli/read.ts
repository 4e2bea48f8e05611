import type { AlertStatus, AlertWithChannel, AnyAlert } from '../types.js';
import { apiFrom, one, parse, UsageError, write, type CliIo } from './context.js';
import { alertLine, channelNames, levelOf, titleOf, useColour } from './format.js';

const LIST_OPTIONS = { level: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' } } as const;
const DEFAULT_LIST_LIMIT = 20;

/** `list`: the visible channels with unread counts; `list CHANNEL`: its newest alerts. */
export async function list(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, LIST_OPTIONS);
  if (positionals.length > 1) throw new UsageError('list takes at most one CHANNEL');
  const limit = values.limit === undefined ? DEFAULT_LIST_LIMIT : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit ${values.limit}: expected a whole number from 1`);
  const api = apiFrom(values, io.env);
  const channel = positionals[0];
  if (channel === undefined) {
    if (values.level || values.status || values.limit) throw new UsageError('--level, --status and --limit need a CHANNEL');
    const channels = await api.channels();
    if (values.json) write(io.stdout, JSON.stringify(channels));
    else for (const c of channels) write(io.stdout, `${c.slug.padEnd(24)} ${String(c._count.alerts).padStart(5)} unread  ${c.name}${c.isPrivate ? ' (private)' : ''}`);
    return 0;
  }
  const alerts: AnyAlert[] = [];
  const query = { level: values.level as 'info' | undefined, status: values.status, limit: Math.min(limit, 100) };
  for await (const a of api.alerts(channel, query)) {
    alerts.push(a);
    if (alerts.length >= limit) break;
  }
  if (values.json) write(io.stdout, JSON.stringify(alerts));
  else {
    const names = channelNames(await api.channels());
    const colour = useColour(io.stdout, io.env);
    for (const a of alerts) write(io.stdout, `${a.id}  ${alertLine(a, names.get(a.channelId) ?? channel, colour)}${a.isRead ? '' : '  •'}`);
  }
  return 0;
}

/** `show ID`: one alert in full. */
export async function show(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {});
  const id = one(positionals, 'the alert ID');
  const alert = await apiFrom(values, io.env).alert(id);
  write(io.stdout, values.json ? JSON.stringify(alert) : describe(alert));
  return 0;
}

/** `read ID [--unread]`: marks the alert read (or unread) for you. */
export async function read(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, { unread: { type: 'boolean' } });
  const id = one(positionals, 'the alert ID');
  const alert = await apiFrom(values, io.env).markRead(id, !values.unread);
  write(io.stdout, values.json ? JSON.stringify(alert) : `${alert.id} ${alert.isRead ? 'read' : 'unread'}`);
  return 0;
}

const statusCommand =
  (status: AlertStatus) =>
  async (args: string[], io: CliIo): Promise<number> => {
    const { values, positionals } = parse(args, {});
    const id = one(positionals, 'the alert ID');
    const alert = await apiFrom(values, io.env).setStatus(id, status);
    write(io.stdout, values.json ? JSON.stringify(alert) : `${alert.id} ${alert.status}`);
    return 0;
  };

/** `ack ID`, `resolve ID`, `reopen ID`: the alert's status, for everyone. */
export const ack = statusCommand('acknowledged');
export const resolve = statusCommand('resolved');
export const reopen = statusCommand('open');

function describe(a: AlertWithChannel): string {
  const lines = [`${titleOf(a)}`, `  id       ${a.id}`, `  channel  #${a.channelSlug} (${a.channelName})`, `  level    ${levelOf(a)}`, `  status   ${a.status}${a.isRead ? '' : ', unread'}`, `  created  ${a.createdAt}`];
  if (a.message) lines.push('', ...a.message.split('\n').map((l) => `  ${l}`));
  if ('fields' in a) {
    if (a.fields.length > 0) lines.push('', ...a.fields.map((f) => `  ${f.label}: ${f.value}`));
    if (a.linkUrl) lines.push(`  ${a.linkText ?? 'link'}: ${a.linkUrl}`);
    if (a.workflow) {
      lines.push('', `  run ${a.workflow.runId}: ${a.workflow.state}`, ...a.workflow.steps.map((s) => `    ${s.state.padEnd(8)} ${s.name}${s.seconds !== undefined ? ` (${s.seconds} s)` : ''}`));
      if (a.workflow.error) lines.push('', ...a.workflow.error.split('\n').map((l) => `  | ${l}`));
    }
  }
  for (const f of a.attachments) lines.push(`  attachment: ${f.url}`);
  return lines.join('\n');
}

