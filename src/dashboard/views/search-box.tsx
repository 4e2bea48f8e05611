/** What the frame's search box shows: the current query and the filters it keeps when the query is refined. */
export interface SearchBoxState {
  q: string;
  keep?: Record<string, string>;
}

/**
 * The search box in the frame of every signed-in page: a plain GET form to
 * /search (works without JavaScript); `/` focuses it (app.js).
 */
export function SearchBox(props: { state?: SearchBoxState | undefined }) {
  const s = props.state;
  return (
    <form method="get" action="/search" class="top-search" id="top-search" role="search" aria-label="Alerts">
      <label for="top-search-q" class="visually-hidden">
        Search alerts
      </label>
      <input type="search" id="top-search-q" name="q" value={s?.q ?? ''} maxlength={256} placeholder="Search alerts  /" autocomplete="off" enterkeyhint="search" data-search-box />
      {Object.entries(s?.keep ?? {}).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <button type="submit" class="button small">
        Search
      </button>
    </form>
  );
}
