import type { $Type, ColumnBuilderBase, HasDefault, NotNull } from 'drizzle-orm';
import { CONTENT_KEYS, contentColumn, type ContentColumn, type ContentDefinitions, type ContentKey } from '../alert-content-columns.js';
import { text, type Column } from './define.js';

// The schema's side of the content list (src/db/shared/alert-content-columns.ts): kept apart so
// that the writes, which load the list at run time, do not load drizzle's column builders.

type DataOf<D> = D extends { values: readonly (infer V)[] } ? V : string;

type TextSides = ReturnType<typeof text> extends Column<infer S, infer P> ? { sqlite: S; pg: P } : never;

/** A content column as each engine's `text` builder types it: nullability and value union included. */
export type ContentColumnBuilder<Base extends ColumnBuilderBase, D> = D extends { notNullDefault: string }
  ? HasDefault<NotNull<$Type<Base, DataOf<D>>>>
  : $Type<Base, DataOf<D>>;

type ContentColumns = {
  [K in ContentKey]: Column<ContentColumnBuilder<TextSides['sqlite'], ContentDefinitions[K]>, ContentColumnBuilder<TextSides['pg'], ContentDefinitions[K]>>;
};

/**
 * The content columns of `alerts`, in the list's order, for the one schema definition
 * (src/db/shared/schema/alerts.ts spreads them between the identity and the chat columns), so
 * drizzle-kit sees the same table as when they were written out by hand, and the row types test
 * (test/db/alert-rows-match-schemas.test.ts) still compares exact types.
 */
export function contentColumns(): ContentColumns {
  const entries = CONTENT_KEYS.map((key) => {
    const definition: ContentColumn = contentColumn(key);
    // `values` only narrows the TypeScript type (ContentColumns above), as drizzle's `enum` does.
    const column = text(definition.column);
    return [key, definition.notNullDefault === undefined ? column : column.notNull().default(definition.notNullDefault)];
  });
  return Object.fromEntries(entries) as ContentColumns;
}
