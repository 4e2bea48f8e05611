import { alertDeletion } from '../../domain/alert-deletion.js';
import type { Command } from '../command.js';

/** Moderating stored alerts. */
export const alertCommands: Command[] = [
  {
    name: 'alert delete',
    usage: '--id A',
    summary: 'delete one alert with its files (open dashboards and streams drop it at once)',
    run: (s, f) => alertDeletion(s).deleteAlert(f.require('id')),
  },
];
