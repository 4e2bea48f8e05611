import type { NotificationKind } from '../../domain/changes.js';
import type { AlertView } from '../../domain/alert-view.js';
import { clip, oneLine } from '../../alert-card/format.js';
import type { ChannelInfo } from './types.js';

const SUBJECT_TITLE_MAX = 120;

/**
 * Subjects lead with what an inbox scan needs: a bracketed tag (level, or the
 * run's phase), the channel, then the title.
 *   [ERROR] #alerts — Disk almost full on db-1
 *   [Started] #deploys — Deploy api      [Passed] / [Failed] when the run ends
 *   [Message] #support — Ana: the checkout page is blank
 *   [Resolved] #alerts — Disk almost full on db-1   (a sender's resolve)
 */
export function subjectFor(alert: AlertView, channel: ChannelInfo, kind: NotificationKind): string {
  const where = `#${channel.slug}`;
  if (!('title' in alert)) {
    const body = alert.message ? oneLine(alert.message) : alert.attachments.length ? '(attachment)' : '';
    return `[Message] ${where} — ${clip(oneLine(`${alert.author.name}: ${body}`), SUBJECT_TITLE_MAX)}`;
  }
  const title = clip(oneLine(alert.title), SUBJECT_TITLE_MAX);
  if (kind === 'alert.resolved') return `[Resolved] ${where} — ${title}`;
  if (alert.workflow && kind !== 'alert.created') {
    const tag = kind === 'workflow.started' ? 'Started' : alert.workflow.state === 'failed' ? 'Failed' : alert.workflow.state === 'passed' ? 'Passed' : 'Update';
    return `[${tag}] ${where} — ${title}`;
  }
  return `[${alert.level}] ${where} — ${title}`;
}
