-- Search covers the name of a message's Discord thread or forum post (docs/discord.md): the name
-- that `thread_json` carries ends the body part, so a post's replies are found by its title and
-- words of the name and of the message can be combined. A rename rewrites `thread_json` on every
-- message of the thread (THREAD_COPIES), which the update triggers now watch, so the index follows.
--
-- The index is external-content: a 'delete' must name exactly the tokens that were indexed. So the
-- threaded rows already indexed leave the index with the old view's text, and come back with the
-- new one; no other row's tokens change (an absent name only adds a trailing space, trimmed).
INSERT INTO `alerts_fts` (`alerts_fts`, rowid, title, body, actor)
  SELECT 'delete', rid, title, body, actor FROM `alerts_search_source`
  WHERE rid IN (SELECT rowid FROM `alerts` WHERE `thread_json` IS NOT NULL)
    AND rid <= (SELECT `indexed_upto` FROM `search_index_state` WHERE `id` = 1);
--> statement-breakpoint
DROP VIEW `alerts_search_source`;
--> statement-breakpoint
CREATE VIEW `alerts_search_source` AS
SELECT
  a.rowid AS rid,
  a.title AS title,
  trim(
    coalesce(a.message, '') || ' ' ||
    coalesce((SELECT group_concat(coalesce(json_extract(f.value, '$.label'), '') || ': ' || coalesce(json_extract(f.value, '$.value'), ''), ' · ')
              FROM json_each(a.fields_json) f), '') || ' ' ||
    coalesce((SELECT group_concat(coalesce(json_extract(s.value, '$.name'), ''), ' ') FROM json_each(a.workflow_steps_json) s), '') || ' ' ||
    coalesce(a.workflow_error, '') || ' ' || coalesce(a.link_text, '') || ' ' || coalesce(a.source, '') || ' ' ||
    coalesce(json_extract(a.thread_json, '$.name'), '')
  ) AS body,
  trim(
    coalesce(json_extract(a.actor_json, '$.name'), '') || ' ' || coalesce(json_extract(a.actor_json, '$.email'), '') || ' ' ||
    coalesce(json_extract(a.actor_json, '$.company'), '') || ' ' || coalesce(json_extract(a.author_json, '$.name'), '')
  ) AS actor
FROM `alerts` a;
--> statement-breakpoint
INSERT INTO `alerts_fts` (rowid, title, body, actor)
  SELECT rid, title, body, actor FROM `alerts_search_source`
  WHERE rid IN (SELECT rowid FROM `alerts` WHERE `thread_json` IS NOT NULL)
    AND rid <= (SELECT `indexed_upto` FROM `search_index_state` WHERE `id` = 1);
--> statement-breakpoint
DROP TRIGGER `alerts_fts_update_old`;
--> statement-breakpoint
CREATE TRIGGER `alerts_fts_update_old` BEFORE UPDATE OF title, message, fields_json, workflow_steps_json, workflow_error, link_text, source, actor_json, author_json, thread_json ON `alerts`
  WHEN OLD.rowid <= (SELECT `indexed_upto` FROM `search_index_state` WHERE `id` = 1) BEGIN
  INSERT INTO `alerts_fts` (`alerts_fts`, rowid, title, body, actor)
    SELECT 'delete', rid, title, body, actor FROM `alerts_search_source` WHERE rid = OLD.rowid;
END;
--> statement-breakpoint
DROP TRIGGER `alerts_fts_update_new`;
--> statement-breakpoint
CREATE TRIGGER `alerts_fts_update_new` AFTER UPDATE OF title, message, fields_json, workflow_steps_json, workflow_error, link_text, source, actor_json, author_json, thread_json ON `alerts`
  WHEN NEW.rowid <= (SELECT `indexed_upto` FROM `search_index_state` WHERE `id` = 1) BEGIN
  INSERT INTO `alerts_fts` (rowid, title, body, actor)
    SELECT rid, title, body, actor FROM `alerts_search_source` WHERE rid = NEW.rowid;
END;
