-- Search excerpts show a field as "label: value", fields apart by " · ", instead of running
-- labels and values into the prose. Only separators change, so every lexeme and position of
-- the stored search_vector stays as computed: no rewrite of the table is needed, and the
-- highlights, which call this function at query time, show the new form for every alert.
CREATE OR REPLACE FUNCTION alertbridge_search_body(message text, fields_json text, steps_json text, workflow_error text, link_text text, source text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL RESTRICTED
RETURN btrim(
  coalesce(message, '') || ' ' ||
  coalesce((SELECT string_agg(coalesce(f.v ->> 'label', '') || ': ' || coalesce(f.v ->> 'value', ''), ' · ' ORDER BY f.n)
            FROM jsonb_array_elements(CASE WHEN jsonb_typeof(alertbridge_search_json(fields_json)) = 'array' THEN alertbridge_search_json(fields_json) END)
              WITH ORDINALITY AS f(v, n)), '') || ' ' ||
  coalesce((SELECT string_agg(coalesce(s.v ->> 'name', ''), ' ' ORDER BY s.n)
            FROM jsonb_array_elements(CASE WHEN jsonb_typeof(alertbridge_search_json(steps_json)) = 'array' THEN alertbridge_search_json(steps_json) END)
              WITH ORDINALITY AS s(v, n)), '') || ' ' ||
  coalesce(workflow_error, '') || ' ' || coalesce(link_text, '') || ' ' || coalesce(source, ''));
