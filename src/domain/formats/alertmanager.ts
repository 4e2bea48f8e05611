import type { GroupCommand } from './command.js';
import { mapAlertGroup } from './alert-group.js';

/** Prometheus Alertmanager's webhook_configs body (version 4): one alert per groupKey, updated in place. */
export const mapAlertmanager = (body: unknown): GroupCommand => mapAlertGroup('alertmanager', body);
