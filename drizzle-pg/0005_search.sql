-- Full-text search on PostgreSQL (README "Search"): the same rules as the SQLite FTS5 index of
-- drizzle/0007_search_index.sql, kept inside the write's own transaction by a stored generated
-- column, so every write path (webhook, group, chat, retention, channel cascade, a hand-written
-- UPDATE or DELETE) is consistent with no code of its own.
--
-- Words: one tokenizer, alertbridge_search_words, is applied to the stored text and to the
-- query, so the two cannot disagree. It folds case and Latin accents (lower-case with ICU, NFD,
-- combining marks U+0300-U+036F dropped, NFC) and makes every run of characters other than
-- letters, decimal digits and private-use characters one separator: unicode61's rule on SQLite.
-- The built-in text-search parser is not used: it keeps e-mails, URLs, paths and hyphenated
-- words as tokens of their own, which FTS5 splits. The 'simple' configuration's dictionary is not
-- needed either: the lexemes are already folded. The ICU collation names Unicode's letter and case
-- rules explicitly, since the columns are COLLATE "C" (ASCII rules only).
CREATE FUNCTION alertbridge_search_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN btrim(regexp_replace(
  normalize(regexp_replace(normalize(lower(t COLLATE "und-x-icu"), NFD), '[\u0300-\u036f]+', '', 'g'), NFC) COLLATE "und-x-icu",
  '[^[:alnum:]\uE000-\uF8FF]+', ' ', 'g'));
--> statement-breakpoint
-- One part's words as a tsvector with positions 1, 2, … and one weight. Built as tsvector text:
-- the lexemes hold letters and digits only, nothing to quote. A word over tsvector's 2047 bytes is
-- left out but keeps its position (a phrase cannot jump over it).
CREATE FUNCTION alertbridge_search_part(t text, weight text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (SELECT coalesce(string_agg(format('''%s'':%s%s', u.w, u.n, weight), ' '), '')::tsvector
        FROM unnest(string_to_array(alertbridge_search_words(t), ' ')) WITH ORDINALITY AS u(w, n)
        WHERE u.w <> '' AND octet_length(u.w) < 2048);
--> statement-breakpoint
-- Stored JSON read leniently: text that is not JSON indexes as nothing rather than failing the write.
-- PARALLEL RESTRICTED (and so every function calling it): the exception block is a subtransaction,
-- which a parallel worker cannot start.
CREATE FUNCTION alertbridge_search_json(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL RESTRICTED STRICT AS $$
BEGIN
  RETURN t::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- The searched text of an alert, part by part, as the SQLite view alerts_search_source defines it.
CREATE FUNCTION alertbridge_search_body(message text, fields_json text, steps_json text, workflow_error text, link_text text, source text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL RESTRICTED
RETURN btrim(
  coalesce(message, '') || ' ' ||
  coalesce((SELECT string_agg(coalesce(f.v ->> 'label', '') || ' ' || coalesce(f.v ->> 'value', ''), ' ' ORDER BY f.n)
            FROM jsonb_array_elements(CASE WHEN jsonb_typeof(alertbridge_search_json(fields_json)) = 'array' THEN alertbridge_search_json(fields_json) END)
              WITH ORDINALITY AS f(v, n)), '') || ' ' ||
  coalesce((SELECT string_agg(coalesce(s.v ->> 'name', ''), ' ' ORDER BY s.n)
            FROM jsonb_array_elements(CASE WHEN jsonb_typeof(alertbridge_search_json(steps_json)) = 'array' THEN alertbridge_search_json(steps_json) END)
              WITH ORDINALITY AS s(v, n)), '') || ' ' ||
  coalesce(workflow_error, '') || ' ' || coalesce(link_text, '') || ' ' || coalesce(source, ''));
--> statement-breakpoint
CREATE FUNCTION alertbridge_search_actor(actor_json text, author_json text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL RESTRICTED
RETURN btrim(
  coalesce(alertbridge_search_json(actor_json) ->> 'name', '') || ' ' || coalesce(alertbridge_search_json(actor_json) ->> 'email', '') || ' ' ||
  coalesce(alertbridge_search_json(actor_json) ->> 'company', '') || ' ' || coalesce(alertbridge_search_json(author_json) ->> 'name', ''));
--> statement-breakpoint
-- Title, body and actor with weights A, B, C: a phrase must lie within one part (as in an FTS5
-- column), which the query expresses as the same phrase under each weight.
CREATE FUNCTION alertbridge_search_document(title text, message text, fields_json text, steps_json text, workflow_error text,
  link_text text, source text, actor_json text, author_json text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL RESTRICTED
RETURN alertbridge_search_part(title, 'A')
  || alertbridge_search_part(alertbridge_search_body(message, fields_json, steps_json, workflow_error, link_text, source), 'B')
  || alertbridge_search_part(alertbridge_search_actor(actor_json, author_json), 'C');
--> statement-breakpoint
-- The query: one operand per term, ANDed. A term of one word is that lexeme (`:*` for a prefix) in
-- any part; a term of several words is a phrase (`<->`) within one part, its last word a prefix
-- when asked. The terms' text never reaches the tsquery parser as syntax: it is reduced to
-- letters and digits first. A term with no word left matches nothing (NULL).
CREATE FUNCTION alertbridge_search_query(texts text[], prefixes boolean[]) RETURNS tsquery LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  q text := '';
  words text[];
  part text;
  k int;
BEGIN
  FOR i IN 1 .. coalesce(array_length(texts, 1), 0) LOOP
    words := array_remove(string_to_array(alertbridge_search_words(texts[i]), ' '), '');
    k := coalesce(cardinality(words), 0);
    IF k = 0 THEN RETURN NULL; END IF;
    IF k = 1 THEN
      part := format('''%s''%s', words[1], CASE WHEN prefixes[i] THEN ':*' ELSE '' END);
    ELSE
      SELECT '(' || string_agg(p.phrase, ' | ') || ')' INTO part
      FROM (SELECT '(' || string_agg(format('''%s'':%s%s', u.w, CASE WHEN prefixes[i] AND u.n = k THEN '*' ELSE '' END, wt.x), ' <-> ' ORDER BY u.n) || ')' AS phrase
            FROM unnest(ARRAY['A', 'B', 'C']) AS wt(x), unnest(words) WITH ORDINALITY AS u(w, n)
            GROUP BY wt.x) p;
    END IF;
    q := CASE WHEN q = '' THEN part ELSE q || ' & ' || part END;
  END LOOP;
  IF q = '' THEN RETURN NULL; END IF;
  RETURN q::tsquery;
END;
$$;
--> statement-breakpoint
-- The search key: grows with insertion order and never changes (SQLite's rowid). Existing alerts
-- are numbered in id order; the column is an identity the application never writes.
ALTER TABLE alerts ADD COLUMN search_key bigint;
--> statement-breakpoint
UPDATE alerts SET search_key = o.n FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM alerts) o WHERE o.id = alerts.id;
--> statement-breakpoint
ALTER TABLE alerts ALTER COLUMN search_key SET NOT NULL;
--> statement-breakpoint
ALTER TABLE alerts ALTER COLUMN search_key ADD GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('alerts', 'search_key'), max(search_key)) FROM alerts HAVING max(search_key) IS NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX alerts_search_key_uq ON alerts (search_key);
--> statement-breakpoint
ALTER TABLE alerts ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (alertbridge_search_document(
  title, message, fields_json, workflow_steps_json, workflow_error, link_text, source, actor_json, author_json)) STORED;
--> statement-breakpoint
CREATE INDEX alerts_search_idx ON alerts USING gin (search_vector);
