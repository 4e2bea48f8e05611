import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../errors.js';
import type { DraftLevel, GroupCommand } from './command.js';
import { finishDraft, noContent } from './draft.js';
import { entry, isPlainObject, larr, lentries, lnum, lobj, lstr } from './lenient.js';
import { FORMAT_LIMITS } from './limits.js';
import { plural } from './text.js';

const GroupAlert = lobj({
  status: lstr,
  labels: lentries,
  annotations: lentries,
  generatorURL: lstr,
  fingerprint: lstr,
  // Grafana's additions per alert.
  values: lentries,
  dashboardURL: lstr,
  panelURL: lstr,
  silenceURL: lstr,
  imageURL: lstr,
});
type GroupAlert = NonNullable<z.output<typeof GroupAlert>>;

/** Alertmanager's version 4 webhook body, with Grafana's additions (title, message, state, orgId), read leniently. */
export const AlertGroupBody = z.object({
  groupKey: lstr,
  truncatedAlerts: lnum,
  status: lstr,
  receiver: lstr,
  groupLabels: lentries,
  commonLabels: lentries,
  commonAnnotations: lentries,
  externalURL: lstr,
  alerts: larr(GroupAlert),
  title: lstr,
  message: lstr,
});
type AlertGroupBody = z.output<typeof AlertGroupBody>;

export type GroupFormat = 'alertmanager' | 'grafana';

/** The issue's severity rule while firing; a missing or unknown severity is an error (an alert nobody graded is not safe to dim). */
export function levelFromSeverity(severity: string | undefined): DraftLevel {
  switch (severity?.trim().toLowerCase()) {
    case 'warning':
      return 'warning';
    case 'info':
    case 'none':
      return 'info';
    default:
      return 'error';
  }
}

/** The emoji name for a group's level: 🚨 is for what is on fire, not for a warning. Info keeps the card's ℹ️. */
const GROUP_EMOJI: Record<DraftLevel, string | undefined> = { success: 'check', error: 'siren', warning: 'warning', info: undefined };

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Labels in a canonical order, so the same set always reads the same. */
const canonical = (entries: readonly [string, string][]) => JSON.stringify([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * Equal for two notifications that describe the same state: the group status
 * and the set of alerts (Alertmanager's fingerprint, else the label set) with
 * each alert's status. Timestamps are left out: Alertmanager resends an
 * unchanged group every repeat_interval, and that resend must read as a repeat.
 */
export function groupStateFingerprint(status: string, alerts: readonly GroupAlert[], truncated: number): string {
  const members = alerts.map((a) => `${a.fingerprint ?? canonical(a.labels)}=${a.status ?? ''}`).sort();
  return sha256(JSON.stringify([status, truncated, members]));
}

/** The store's key: namespaced by format so an Alertmanager and a Grafana group never meet; long keys are hashed to fit. */
function storeKey(format: GroupFormat, body: AlertGroupBody): string | undefined {
  const raw = body.groupKey?.trim() || (body.groupLabels.length > 0 ? canonical(body.groupLabels) : undefined);
  if (!raw) return undefined;
  const key = `${format}:${raw}`;
  return key.length <= FORMAT_LIMITS.runId ? key : `${format}:sha256:${sha256(raw)}`;
}

function alertLine(a: GroupAlert, groupStatus: string, format: GroupFormat): string {
  const others = a.labels.filter(([k]) => k !== 'alertname');
  const what =
    // An empty annotation (a template that rendered nothing) counts as absent.
    entry(a.annotations, 'summary')?.trim() ||
    entry(a.annotations, 'description')?.trim() ||
    (entry(a.labels, 'alertname') ?? 'alert') +
      (others.length > 0 ? ` {${others.map(([k, v]) => `${k}=${v}`).join(', ')}}` : '');
  let line = `• ${what.trim()}`;
  if (a.status && a.status !== groupStatus) line += ` (${a.status})`;
  if (format === 'grafana') {
    if (a.values.length > 0) line += ` — ${a.values.map(([k, v]) => `${k}=${v}`).join(', ')}`;
    const links = [
      ['Dashboard', a.dashboardURL],
      ['Panel', a.panelURL],
      ['Silence', a.silenceURL],
    ].filter((l): l is [string, string] => typeof l[1] === 'string' && l[1] !== '');
    if (links.length > 0) line += `\n  ${links.map(([k, v]) => `${k}: ${v}`).join(' · ')}`;
  }
  return line;
}

/**
 * Maps an Alertmanager (v4) or Grafana unified-alerting notification to the
 * group command. The level is success when resolved, else from
 * commonLabels.severity. Title: Grafana's `title`; else
 * commonAnnotations.summary; else the alert name and the number of alerts.
 */
export function mapAlertGroup(format: GroupFormat, rawBody: unknown): GroupCommand {
  if (!isPlainObject(rawBody)) throw new AppError('invalid-payload', 'the body must be a JSON object');
  const body = AlertGroupBody.parse(rawBody);
  const key = storeKey(format, body);
  if (!key) throw noContent('the notification has neither a groupKey nor group labels');
  if (body.alerts.length === 0 && !body.title && !body.message) throw noContent('the notification has no alerts');

  // Alertmanager sends "firing" or "resolved"; anything else is read from the alerts themselves.
  const status: GroupCommand['status'] =
    body.status === 'resolved' || body.status === 'firing'
      ? body.status
      : body.alerts.length > 0 && body.alerts.every((a) => a.status === 'resolved')
        ? 'resolved'
        : 'firing';

  const n = body.alerts.length + (body.truncatedAlerts ?? 0);
  const alertname =
    entry(body.commonLabels, 'alertname') ?? entry(body.groupLabels, 'alertname') ?? body.alerts.map((a) => entry(a.labels, 'alertname')).find(Boolean);
  const title =
    (format === 'grafana' ? body.title?.trim() : undefined) ||
    entry(body.commonAnnotations, 'summary')?.trim() ||
    `${alertname ?? body.receiver ?? 'Alert group'} · ${plural(n, 'alert')}`;

  const lines = body.alerts.map((a) => alertLine(a, status, format));
  if ((body.truncatedAlerts ?? 0) > 0) lines.push(`… and ${plural(body.truncatedAlerts!, 'more alert')} the sender left out`);
  const message = lines.length > 0 ? lines.join('\n') : body.message;

  const level = status === 'resolved' ? 'success' : levelFromSeverity(entry(body.commonLabels, 'severity'));
  const { payload, attachmentUrls } = finishDraft(
    {
      title,
      level,
      emoji: GROUP_EMOJI[level],
      message,
      fields: body.commonLabels.map(([label, value]) => ({ label, value, inline: true })),
      linkUrl: body.alerts.find((a) => a.generatorURL)?.generatorURL ?? body.externalURL,
      source: format === 'grafana' ? 'Grafana' : 'Alertmanager',
      metadata: { via: format, status, ...(body.receiver ? { receiver: body.receiver.slice(0, 200) } : {}) },
    },
    format === 'grafana' ? body.alerts.map((a) => a.imageURL).filter((u): u is string => u !== undefined) : [],
  );
  return {
    kind: 'group',
    groupKey: key,
    status,
    stateFingerprint: groupStateFingerprint(status, body.alerts, body.truncatedAlerts ?? 0),
    payload,
    attachmentUrls,
  };
}
