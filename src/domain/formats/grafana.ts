import type { GroupCommand } from './command.js';
import { mapAlertGroup } from './alert-group.js';

/**
 * Grafana's unified-alerting webhook contact point: Alertmanager's shape plus
 * `title` (the alert's title here), per-alert values and dashboard, panel and
 * silence links (listed in the message) and `imageURL` (fetched as an attachment).
 */
export const mapGrafana = (body: unknown): GroupCommand => mapAlertGroup('grafana', body);
