-- Full-text search over alerts (README "Search"). The indexed text of an alert
-- is defined ONCE, by the view below: the FTS table reads its content from it
-- (external content, so the text is not stored twice), and every trigger reads
-- the view too. An external-content index must be told the exact old text to
-- remove a row; reading it from the same view, before the row changes, is what
-- keeps every write path (webhook, workflow update, chat edit/delete, retention,
-- channel delete by cascade, a hand-written DELETE) consistent with the index.
CREATE VIEW `alerts_search_source` AS
SELECT
  a.rowid AS rid,
  a.title AS title,
  trim(
    coalesce(a.message, '') || ' ' ||
    coalesce((SELECT group_concat(coalesce(json_extract(f.value, '$.label'), '') || ' ' || coalesce(json_extract(f.value, '$.value'), ''), ' ')
              FROM json_each(a.fields_json) f), '') || ' ' ||
    coalesce((SELECT group_concat(coalesce(json_extract(s.value, '$.name'), ''), ' ') FROM json_each(a.workflow_steps_json) s), '') || ' ' ||
    coalesce(a.workflow_error, '') || ' ' || coalesce(a.link_text, '') || ' ' || coalesce(a.source, '')
  ) AS body,
  trim(
    coalesce(json_extract(a.actor_json, '$.name'), '') || ' ' || coalesce(json_extract(a.actor_json, '$.email'), '') || ' ' ||
    coalesce(json_extract(a.actor_json, '$.company'), '') || ' ' || coalesce(json_extract(a.author_json, '$.name'), '')
  ) AS actor
FROM `alerts` a;
--> statement-breakpoint
CREATE VIRTUAL TABLE `alerts_fts` USING fts5(
  title, body, actor,
  content = 'alerts_search_source', content_rowid = 'rid',
  tokenize = 'unicode61 remove_diacritics 2'
);
--> statement-breakpoint
-- The backfill of existing alerts. Not FTS5's 'rebuild': it reads the view
-- schema-qualified, and SQLite then looks json_each up as a table of main.
INSERT INTO `alerts_fts` (rowid, title, body, actor) SELECT rid, title, body, actor FROM `alerts_search_source`;
--> statement-breakpoint
CREATE TRIGGER `alerts_fts_insert` AFTER INSERT ON `alerts` BEGIN
  INSERT INTO `alerts_fts` (rowid, title, body, actor)
    SELECT rid, title, body, actor FROM `alerts_search_source` WHERE rid = NEW.rowid;
END;
--> statement-breakpoint
-- BEFORE: the row, and so its indexed text, still exists.
CREATE TRIGGER `alerts_fts_delete` BEFORE DELETE ON `alerts` BEGIN
  INSERT INTO `alerts_fts` (`alerts_fts`, rowid, title, body, actor)
    SELECT 'delete', rid, title, body, actor FROM `alerts_search_source` WHERE rid = OLD.rowid;
END;
--> statement-breakpoint
-- Only the columns the view reads: read-state and resurfacing updates (activity_key) cost nothing.
CREATE TRIGGER `alerts_fts_update_old` BEFORE UPDATE OF title, message, fields_json, workflow_steps_json, workflow_error, link_text, source, actor_json, author_json ON `alerts` BEGIN
  INSERT INTO `alerts_fts` (`alerts_fts`, rowid, title, body, actor)
    SELECT 'delete', rid, title, body, actor FROM `alerts_search_source` WHERE rid = OLD.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `alerts_fts_update_new` AFTER UPDATE OF title, message, fields_json, workflow_steps_json, workflow_error, link_text, source, actor_json, author_json ON `alerts` BEGIN
  INSERT INTO `alerts_fts` (rowid, title, body, actor)
    SELECT rid, title, body, actor FROM `alerts_search_source` WHERE rid = NEW.rowid;
END;
