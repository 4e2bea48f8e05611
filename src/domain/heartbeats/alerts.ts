import type { Logger } from '../../lib/logger.js';
import type { FormatIngest } from '../webhook/ingest-formats.js';
import { WebhookPayload } from '../webhook/payload.js';
import type { HeartbeatCheck, HeartbeatRows, StoredPing } from './ports.js';
import { nextExpected } from './schedule.js';

/** Characters of the failing ping's log kept in the alert (a field holds at most 1,000). */
const LOG_TAIL = 900;

/**
 * A check's alert, one per down episode, in the check's channel. It is keyed in the alert-groups
 * table by `heartbeat:<check id>`: a key space of its own, which no webhook sender's `dedupKey` (a
 * column of alerts) can reach. Writes are idempotent by the episode's fingerprint, so a retry after a
 * crash, or a second node doing the same pass, writes nothing twice.
 */
export class HeartbeatAlerts {
  constructor(
    private readonly rows: HeartbeatRows,
    private readonly formats: Pick<FormatIngest, 'ingestGroup'>,
    private readonly logger: Logger,
  ) {}

  /** Brings the check's alert in line with its state: opened for a new down episode, resolved when up again. */
  async reconcile(c: HeartbeatCheck): Promise<boolean> {
    if (c.status === 'down' && c.downSince !== null && c.alertedSince !== c.downSince) {
      await this.write(c, 'firing', `down:${c.downSince}`);
      return await this.rows.markAlerted(c.id, c.downSince, c.downSince);
    }
    if (c.status === 'up' && c.alertedSince !== null) {
      await this.write(c, 'resolved', `up:${c.alertedSince}`);
      return await this.rows.markAlerted(c.id, null, null);
    }
    return false;
  }

  /** Another failure while down: the open alert is updated in place with the new ping, without notifying again. */
  async repeatFailure(c: HeartbeatCheck): Promise<void> {
    if (c.alertedSince === null || c.alertedSince !== c.downSince) return;
    await this.write(c, 'firing', `down:${c.downSince}:${c.pingCount}`);
  }

  /** Best effort after a ping's commit: the timer's next pass retries whatever failed here. */
  async afterPing(before: HeartbeatCheck, after: HeartbeatCheck): Promise<void> {
    try {
      if (after.status === 'down' && before.status === 'down') await this.repeatFailure(after);
      else await this.reconcile(after);
    } catch (err) {
      this.logger.warn({ err, check: after.id }, 'heartbeat alert not written yet; the timer retries');
    }
  }

  private async write(c: HeartbeatCheck, status: 'firing' | 'resolved', fingerprint: string) {
    const channel = await this.rows.channel(c.channelId);
    if (!channel) return;
    const [last] = await this.rows.pings(c.id, 1);
    const alert = WebhookPayload.parse(status === 'firing' ? downAlert(c, last) : upAlert(c));
    await this.formats.ingestGroup(channel, alert, [], { key: `heartbeat:${c.id}`, status, stateFingerprint: fingerprint });
  }
}

const iso = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toISOString());

/** The run's duration in words, as the card shows it. */
export function durationText(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
}

function reasonOf(c: HeartbeatCheck, last: StoredPing | undefined): string {
  if (last?.kind === 'fail') return last.exitStatus !== null ? `the job exited with status ${last.exitStatus}` : 'the job reported a failure';
  if (last?.kind === 'start') return 'started, never finished';
  return c.lastPingAt === null ? 'no ping since it was created' : 'no ping in time';
}

function downAlert(c: HeartbeatCheck, last: StoredPing | undefined) {
  const expected = c.lastPingAt === null ? null : nextExpected(c.schedule, c.lastPingAt);
  const fields = [
    { name: 'Reason', value: reasonOf(c, last) },
    { name: 'Last ping', value: iso(c.lastPingAt) },
    { name: 'Expected at', value: iso(expected) },
    { name: 'Last duration', value: durationText(c.lastDurationMs) },
  ];
  if (last?.kind === 'fail' && last.body) fields.push({ name: 'Log', value: last.body.slice(-LOG_TAIL) });
  return { title: `${c.name} is down`, level: 'ERROR', source: `Heartbeat ${c.name}`, fields };
}

function upAlert(c: HeartbeatCheck) {
  return {
    title: `${c.name} is up`,
    level: 'SUCCESS',
    source: `Heartbeat ${c.name}`,
    fields: [
      { name: 'Last ping', value: iso(c.lastPingAt) },
      { name: 'Last duration', value: durationText(c.lastDurationMs) },
    ],
  };
}
