-- Search covers the name of a message's Discord thread or forum post (docs/discord.md), as on
-- SQLite (drizzle/0027_search_thread_names.sql): the name that `thread_json` carries ends the body
-- part, so a post's replies are found by its title and words of the name and of the message can be
-- combined. A rename rewrites `thread_json` on the thread's messages (THREAD_COPIES), and the stored
-- generated column is recomputed by that same statement.
--
-- The body with the thread's name after it; the highlights read the same function, so they mark
-- the words the index holds. For an alert outside a thread (every webhook alert) the name is NULL
-- without a call (alertbridge_search_json is STRICT): the write's cost does not change.
CREATE FUNCTION alertbridge_search_body_in_thread(body text, thread_json text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL RESTRICTED
RETURN btrim(coalesce(body, '') || ' ' || coalesce(alertbridge_search_json(thread_json) ->> 'name', ''));
--> statement-breakpoint
CREATE FUNCTION alertbridge_search_document(title text, message text, fields_json text, steps_json text, workflow_error text,
  link_text text, source text, actor_json text, author_json text, thread_json text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL RESTRICTED
RETURN alertbridge_search_part(title, 'A')
  || alertbridge_search_part(alertbridge_search_body_in_thread(
       alertbridge_search_body(message, fields_json, steps_json, workflow_error, link_text, source), thread_json), 'B')
  || alertbridge_search_part(alertbridge_search_actor(actor_json, author_json), 'C');
--> statement-breakpoint
-- A generated column's expression cannot be changed in place before PostgreSQL 17: the column is
-- recomputed once for every alert (a table rewrite) and its GIN index rebuilt.
ALTER TABLE alerts DROP COLUMN search_vector;
--> statement-breakpoint
ALTER TABLE alerts ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (alertbridge_search_document(
  title, message, fields_json, workflow_steps_json, workflow_error, link_text, source, actor_json, author_json, thread_json)) STORED;
--> statement-breakpoint
CREATE INDEX alerts_search_idx ON alerts USING gin (search_vector);
--> statement-breakpoint
-- The nine-argument form is no longer used by anything.
DROP FUNCTION alertbridge_search_document(text, text, text, text, text, text, text, text, text);
