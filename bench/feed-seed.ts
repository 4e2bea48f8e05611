import type { Database } from 'better-sqlite3';

/** A product team's words; early ones are drawn far more often (see WORD), so "deploy" is common and "zebra" rare. */
export const VOCABULARY = (
  'deploy api failed error passed build release checkout payment invoice signup user customer order refund timeout database ' +
  'latency worker queue retry cluster region frankfurt virginia oregon tokyo mobile web ios android backend frontend staging ' +
  'production rollback migration schema index cache redis postgres kafka webhook email notification subscription trial upgrade ' +
  'downgrade churn feedback bug crash memory cpu disk network certificate expired renewed quota exceeded limit throttled login ' +
  'logout password reset verification token session cookie browser chrome safari firefox report export import csv pdf upload ' +
  'download image video audio search filter dashboard chart metric alert incident resolved acknowledged escalated oncall pager ' +
  'sla uptime downtime outage degraded healthy unhealthy scaling autoscale container kubernetes pod node docker terraform ' +
  'ansible pipeline github gitlab jenkins commit merge branch tag version changelog hotfix patch feature flag experiment ' +
  'cohort funnel conversion revenue mrr arr stripe paddle tax vat currency euro dollar dispute chargeback fraud checksum zebra'
).split(' ');

/** A skewed pick (the product of two uniform draws favours low indexes, roughly Zipf-like). */
const WORD = `(SELECT w FROM temp.vocab WHERE k = ((abs(random()) % ${VOCABULARY.length}) * (abs(random()) % ${VOCABULARY.length}) / ${VOCABULARY.length}) + 0 * i)`;

/**
 * `count` alerts spread over `channelIds` (round robin), 1 ms apart, with
 * titles, messages, a field and an actor drawn from VOCABULARY, seeded in one
 * statement; the search index is built afterwards from its view, as the
 * migration backfills it. Ids follow the service's layout (sorting by time).
 */
export function seedAlerts(sqlite: Database, channelIds: string[], count: number, offset = 0): void {
  sqlite.exec('CREATE TEMP TABLE IF NOT EXISTS vocab (k INTEGER PRIMARY KEY, w TEXT)');
  sqlite.exec('CREATE TEMP TABLE IF NOT EXISTS chans (k INTEGER PRIMARY KEY, id TEXT)');
  sqlite.exec('DELETE FROM temp.vocab; DELETE FROM temp.chans');
  const addWord = sqlite.prepare('INSERT INTO temp.vocab (k, w) VALUES (?, ?)');
  VOCABULARY.forEach((w, k) => addWord.run(k, w));
  const addChannel = sqlite.prepare('INSERT INTO temp.chans (k, id) VALUES (?, ?)');
  channelIds.forEach((id, k) => addChannel.run(k, id));
  const t0 = Date.UTC(2026, 0, 1);
  const bulk = count > 10_000;
  // In bulk the index is built once afterwards (as the migration backfills it): the insert trigger waits, then comes back as it was.
  const trigger = sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'alerts_fts_insert'").pluck().get();
  if (bulk) sqlite.exec('DROP TRIGGER alerts_fts_insert');
  sqlite.exec(`
    WITH RECURSIVE seq(i) AS (SELECT ${offset + 1} UNION ALL SELECT i + 1 FROM seq WHERE i < ${offset + count})
    INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, fields_json, link_url, link_text, source, actor_json, activity_key, created_at, updated_at)
    SELECT 'alt_01' || printf('%08d', i) || '0000000000000000', (SELECT id FROM temp.chans WHERE k = i % ${channelIds.length}), 'standard',
      ${WORD} || ' ' || ${WORD} || ' ' || ${WORD},
      CASE i % 4 WHEN 0 THEN 'INFO' WHEN 1 THEN 'SUCCESS' WHEN 2 THEN 'WARNING' ELSE 'ERROR' END, '',
      ${WORD} || ' ' || ${WORD} || ' ' || ${WORD} || ' ' || ${WORD} || ' ' || ${WORD} || ' ' || ${WORD} || ' ' || ${WORD} || ' ' || ${WORD},
      json_array(json_object('label', 'service', 'value', ${WORD}, 'inline', json('true')), json_object('label', 'version', 'value', 'v1.' || (i % 50) || '.0', 'inline', json('true'))),
      'https://ci.example.com/runs/' || i, 'View run', 'github-actions',
      json_object('name', 'user' || (i % 5000), 'email', 'user' || (i % 5000) || '@acme.test', 'company', ${WORD}),
      'alt_01' || printf('%08d', i) || '0000000000000000', ${t0} + i, ${t0} + i
    FROM seq`);
  if (bulk) {
    sqlite.exec('INSERT INTO alerts_fts (rowid, title, body, actor) SELECT rid, title, body, actor FROM alerts_search_source');
    if (typeof trigger === 'string') sqlite.exec(trigger);
    sqlite.exec("INSERT INTO alerts_fts (alerts_fts) VALUES ('optimize')");
  }
}
