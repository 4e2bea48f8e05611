import type { AlertContent } from '../../domain/alert-store.js';

/** Where one content key is stored, and the column's definition both engines' schemas build from it. */
export interface ContentColumn {
  readonly column: string;
  /** The element type of PostgreSQL's `unnest` array in the batched insert. */
  readonly pgType: 'text';
  /** A workflow run's own column: run updates write it by their own rule, group updates leave it alone. */
  readonly ofRun?: true;
  /** NOT NULL with this default; without it the column is nullable. */
  readonly notNullDefault?: string;
  /** Narrows the TypeScript type only (neither engine stores a CHECK for it), as drizzle's `enum` does. */
  readonly values?: readonly [string, ...string[]];
}

/**
 * A standard alert's content, the one list every content write is built from when its module
 * loads: SQLite's insert and run update, PostgreSQL's batched insert and run update, and both
 * engines' group update. Both drizzle schemas build these columns of `alerts` from it too
 * (src/db/shared/schema/content-columns.ts), so a plain field is one entry here, not three edits. Typed against AlertContent (which follows AlertRow), so a content key
 * missing here, or one that is not content, fails to compile: no write can leave a column stale.
 * test/db/alert-rows-match-schemas.test.ts checks each column name and type against both schemas.
 */
const COLUMNS = {
  title: { column: 'title', pgType: 'text', notNullDefault: '' },
  level: { column: 'level', pgType: 'text', notNullDefault: 'INFO', values: ['INFO', 'SUCCESS', 'WARNING', 'ERROR'] },
  emoji: { column: 'emoji', pgType: 'text', notNullDefault: '' },
  message: { column: 'message', pgType: 'text' },
  fieldsJson: { column: 'fields_json', pgType: 'text' },
  linkUrl: { column: 'link_url', pgType: 'text' },
  linkText: { column: 'link_text', pgType: 'text' },
  source: { column: 'source', pgType: 'text' },
  metadataJson: { column: 'metadata_json', pgType: 'text' },
  actorJson: { column: 'actor_json', pgType: 'text' },
  workflowRunId: { column: 'workflow_run_id', pgType: 'text', ofRun: true },
  workflowState: { column: 'workflow_state', pgType: 'text', ofRun: true, values: ['running', 'passed', 'failed'] },
  workflowStepsJson: { column: 'workflow_steps_json', pgType: 'text', ofRun: true },
  workflowError: { column: 'workflow_error', pgType: 'text', ofRun: true },
  dedupKey: { column: 'dedup_key', pgType: 'text' },
} as const satisfies { readonly [K in keyof AlertContent]-?: ContentColumn };

export type ContentKey = keyof AlertContent;

/** Every content key, in the list's order. */
export const CONTENT_KEYS = Object.keys(COLUMNS) as ContentKey[];

/** The content keys that are not a workflow run's own: what every update of an alert's content rewrites. */
export const PLAIN_CONTENT_KEYS = CONTENT_KEYS.filter((key) => !(COLUMNS[key] as ContentColumn).ofRun);

export function contentColumn(key: ContentKey): ContentColumn {
  return COLUMNS[key];
}

/** `<column> = <parameter>, …` over the plain content keys, each parameter spelled by `parameter`. */
export function plainContentAssignments(parameter: (key: ContentKey, index: number) => string): string {
  return PLAIN_CONTENT_KEYS.map((key, i) => `${COLUMNS[key].column} = ${parameter(key, i)}`).join(', ');
}

/** The list's type, for the schema's column builders (src/db/shared/schema/content-columns.ts). */
export type ContentDefinitions = typeof COLUMNS;
