-- Search excerpts show a field as "label: value", fields apart by " · ", instead of running
-- labels and values into the prose. Only separators change (":" and "·" are not token
-- characters for unicode61), so every token and its position stay as indexed: the
-- external-content index reads the view at query time and needs no rebuild, and the
-- triggers' 'delete' of an old row still names exactly the tokens it indexed.
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
    coalesce(a.workflow_error, '') || ' ' || coalesce(a.link_text, '') || ' ' || coalesce(a.source, '')
  ) AS body,
  trim(
    coalesce(json_extract(a.actor_json, '$.name'), '') || ' ' || coalesce(json_extract(a.actor_json, '$.email'), '') || ' ' ||
    coalesce(json_extract(a.actor_json, '$.company'), '') || ' ' || coalesce(json_extract(a.author_json, '$.name'), '')
  ) AS actor
FROM `alerts` a;
