-- The search vector's functions in PL/pgSQL, with the same expressions (docs/benchmarks.md).
--
-- Why: before PostgreSQL 18 a SQL function that cannot be inlined (a sub-SELECT in its body) is
-- planned again in every statement that calls it, at every call site. The stored column called
-- alertbridge_search_part three times and alertbridge_search_body once: about 0.75 ms of planning
-- per INSERT, whatever its number of rows, against about 0.085 ms per row to compute the vector.
-- PL/pgSQL keeps its plans for the session's life, so the planning is paid once per connection.
--
-- The vectors do not change, so the stored column is not recomputed (no table rewrite).
--
-- A PL/pgSQL body finds other functions through search_path when it runs, where a SQL-standard
-- body had them bound when it was created. pg_restore runs with an empty search_path, so the
-- column's function pins the path it was created with (SET search_path FROM CURRENT). The inner
-- functions run inside it, and the app's own sessions have that path.
CREATE OR REPLACE FUNCTION alertbridge_search_part(t text, weight text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN (SELECT coalesce(string_agg(format('''%s'':%s%s', u.w, u.n, weight), ' '), '')::tsvector
          FROM unnest(string_to_array(alertbridge_search_words(t), ' ')) WITH ORDINALITY AS u(w, n)
          WHERE u.w <> '' AND octet_length(u.w) < 2048);
END;
$$;
--> statement-breakpoint
-- As drizzle-pg/0008_search_field_labels.sql wrote it, each JSON column now read once (it was
-- read twice: once for its type, once for its elements).
CREATE OR REPLACE FUNCTION alertbridge_search_body(message text, fields_json text, steps_json text, workflow_error text, link_text text, source text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL RESTRICTED AS $$
DECLARE
  fields jsonb := alertbridge_search_json(fields_json);
  steps jsonb := alertbridge_search_json(steps_json);
BEGIN
  RETURN btrim(
    coalesce(message, '') || ' ' ||
    coalesce((SELECT string_agg(coalesce(f.v ->> 'label', '') || ': ' || coalesce(f.v ->> 'value', ''), ' · ' ORDER BY f.n)
              FROM jsonb_array_elements(CASE WHEN jsonb_typeof(fields) = 'array' THEN fields END)
                WITH ORDINALITY AS f(v, n)), '') || ' ' ||
    coalesce((SELECT string_agg(coalesce(s.v ->> 'name', ''), ' ' ORDER BY s.n)
              FROM jsonb_array_elements(CASE WHEN jsonb_typeof(steps) = 'array' THEN steps END)
                WITH ORDINALITY AS s(v, n)), '') || ' ' ||
    coalesce(workflow_error, '') || ' ' || coalesce(link_text, '') || ' ' || coalesce(source, ''));
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION alertbridge_search_document(title text, message text, fields_json text, steps_json text, workflow_error text,
  link_text text, source text, actor_json text, author_json text, thread_json text)
RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL RESTRICTED SET search_path FROM CURRENT AS $$
BEGIN
  RETURN alertbridge_search_part(title, 'A')
    || alertbridge_search_part(alertbridge_search_body_in_thread(
         alertbridge_search_body(message, fields_json, steps_json, workflow_error, link_text, source), thread_json), 'B')
    || alertbridge_search_part(alertbridge_search_actor(actor_json, author_json), 'C');
END;
$$;
