import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { MEDIA_KEY_RE } from '../media/store.js';
import { sizeOf } from './files.js';

/** What `stats` prints: where the bytes of DATA_DIR go. */
export interface DataStats {
  database: { bytes: number; walBytes: number };
  /** Every stored media file, referenced or not (orphans inside their grace period count here). */
  media: { bytes: number; files: number };
  workspaces: {
    id: string;
    name: string;
    alerts: number;
    /** Distinct files its alerts reference: a file shared by two channels counts once here, once in each channel. */
    mediaBytes: number;
    channels: { id: string; slug: string; alerts: number; mediaBytes: number }[];
  }[];
}

/** Reads the sizes: index scans (a count per channel) and one directory listing; safe while the service runs. */
export function collectStats(sqlite: Database.Database, files: { dbFile: string; mediaDir: string }): DataStats {
  const channels = sqlite
    .prepare<[], { workspaceId: string; workspaceName: string; id: string | null; slug: string | null; alerts: number | null }>(
      `SELECT w.id AS workspaceId, w.name AS workspaceName, c.id, c.slug,
              (SELECT count(*) FROM alerts a WHERE a.channel_id = c.id) AS alerts
       FROM workspaces w
       LEFT JOIN channels c ON c.workspace_id = w.id
       ORDER BY w.created_at, w.id, c.slug`,
    )
    .all();
  const distinctBytes = (groupBy: 'a.channel_id' | 'c.workspace_id') =>
    new Map(
      sqlite
        .prepare<[], { owner: string; bytes: number }>(
          `SELECT owner, sum(size) AS bytes FROM (
             SELECT DISTINCT ${groupBy} AS owner, att.media_key, att.size
             FROM alert_attachments att JOIN alerts a ON a.id = att.alert_id JOIN channels c ON c.id = a.channel_id)
           GROUP BY owner`,
        )
        .all()
        .map((r) => [r.owner, r.bytes]),
    );
  const channelBytes = distinctBytes('a.channel_id');
  const workspaceBytes = distinctBytes('c.workspace_id');

  const workspaces = new Map<string, DataStats['workspaces'][number]>();
  for (const row of channels) {
    let ws = workspaces.get(row.workspaceId);
    if (!ws) {
      ws = { id: row.workspaceId, name: row.workspaceName, alerts: 0, mediaBytes: workspaceBytes.get(row.workspaceId) ?? 0, channels: [] };
      workspaces.set(row.workspaceId, ws);
    }
    if (row.id === null) continue; // a workspace without channels
    const alerts = row.alerts ?? 0;
    ws.alerts += alerts;
    ws.channels.push({ id: row.id, slug: row.slug!, alerts, mediaBytes: channelBytes.get(row.id) ?? 0 });
  }
  return {
    database: { bytes: sizeOf(files.dbFile), walBytes: sizeOf(`${files.dbFile}-wal`) },
    media: mediaUsage(files.mediaDir),
    workspaces: [...workspaces.values()],
  };
}

function mediaUsage(dir: string): DataStats['media'] {
  let bytes = 0;
  let count = 0;
  if (!fs.existsSync(dir)) return { bytes, files: count };
  for (const name of fs.readdirSync(dir)) {
    if (!MEDIA_KEY_RE.test(name)) continue; // temp files of running uploads
    bytes += sizeOf(path.join(dir, name));
    count++;
  }
  return { bytes, files: count };
}
