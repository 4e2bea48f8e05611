import { statement } from './statement.js';

// Two look-ups the alert stores answer outside their units (src/db/sqlite/alert-store/index.ts, src/db/pg/alert-store/index.ts).

/** Whether any alert still uses a stored file (the media store asks before it deletes one). */
export const MEDIA_REFERENCED = statement<{ key: string }, { one: number }>('SELECT 1 AS one FROM alert_attachments WHERE media_key = :key LIMIT 1');

/** The primary key's last entry (start-up only: seeds the id generator so ids keep sorting after a restart). */
export const NEWEST_ALERT_ID = statement<Record<string, never>, { id: string | null }>('SELECT max(id) AS id FROM alerts');
