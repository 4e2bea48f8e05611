import type { TransferEngine } from './engine.js';
import { endSchema, ExportWriter, FORMAT, headerSchema, readExport, rowSchema, sectionSchema, TableHasher, VERSION, type TableDigest } from './export-file.js';
import { normalise, transferTables, type TableSpec, type Value } from './tables.js';

/** The data says no (target not empty, file damaged or from another version): nothing was written. */
export class TransferRefusal extends Error {}

export interface TransferReport {
  engine: 'sqlite' | 'postgres';
  where: string;
  tables: Record<string, TableDigest>;
  rows: number;
}

const INSERT_BATCH = 1000;

/** Every table of `source`, from one consistent snapshot, into `file` (which must not exist). */
export async function exportInstallation(source: TransferEngine, file: string): Promise<TransferReport> {
  const tables = transferTables();
  const writer = new ExportWriter(file);
  const digests: Record<string, TableDigest> = {};
  try {
    await source.begin('read');
    writer.json({ format: FORMAT, version: VERSION, engine: source.dialect, exportedAt: new Date().toISOString(), tables: tables.map((t) => t.name) });
    for (const t of tables) {
      writer.json({ table: t.name, columns: t.columns.map((c) => c.name) });
      const hasher = new TableHasher();
      for await (const batch of source.rows(t)) for (const row of batch) writer.line(hasher.add(row));
      const digest = hasher.digest();
      digests[t.name] = digest;
      writer.json({ end: t.name, ...digest, sequence: await source.sequence(t) });
    }
    writer.json({ complete: true });
    await source.commit();
    writer.finish();
  } catch (err) {
    writer.abandon();
    await source.rollback().catch(() => {});
    throw err;
  }
  return report(source, digests);
}

/**
 * The file into `target`, which must be empty, in ONE transaction: every row is checked against its
 * column's type, every table against the file's own count and digest, and finally every table of the
 * target is read back and must give the same count and digest, or nothing is committed.
 */
export async function importInstallation(file: string, target: TransferEngine): Promise<TransferReport> {
  const tables = transferTables();
  const byName = new Map(tables.map((t) => [t.name, t]));
  const digests: Record<string, TableDigest> = {};
  await target.begin('write');
  try {
    const busy = await target.nonEmpty(tables);
    if (busy.length > 0) throw new TransferRefusal(`the target ${target.where} is not empty (rows in ${busy.join(', ')}): import only into a new, empty database`);

    let expected: string[] | undefined;
    let current: { spec: TableSpec; hasher: TableHasher; pending: Value[][] } | undefined;
    let complete = false;
    for await (const { n, value } of readExport(file)) {
      const at = (message: string) => new TransferRefusal(`${file}, line ${n}: ${message}`);
      if (complete) throw at('content after the end marker');
      if (!expected) {
        const header = headerSchema.safeParse(value);
        if (!header.success) throw at(`not an Alertbridge export (format "${FORMAT}", version ${VERSION})`);
        expected = header.data.tables;
        const missing = tables.filter((t) => !expected!.includes(t.name)).map((t) => t.name);
        const unknown = expected.filter((name) => !byName.has(name));
        if (missing.length > 0 || unknown.length > 0) {
          throw at(`made by another version of Alertbridge (missing tables: ${missing.join(', ') || 'none'}; unknown: ${unknown.join(', ') || 'none'}); export and import with the same version`);
        }
        continue;
      }
      if (current) {
        const row = rowSchema.safeParse(value);
        if (row.success) {
          const { spec } = current;
          if (row.data.length !== spec.columns.length) throw at(`a ${spec.name} row has ${row.data.length} values, not ${spec.columns.length}`);
          const values = spec.columns.map((c, i) => {
            try {
              return normalise(c.kind, row.data[i], `${spec.name}.${c.name}`);
            } catch (err) {
              throw at(err instanceof Error ? err.message : String(err));
            }
          });
          current.hasher.add(values);
          current.pending.push(values);
          if (current.pending.length === INSERT_BATCH) {
            await target.insert(spec, current.pending);
            current.pending = [];
          }
          continue;
        }
        const end = endSchema.safeParse(value);
        if (!end.success || end.data.end !== current.spec.name) throw at(`expected a ${current.spec.name} row or its end marker`);
        await target.insert(current.spec, current.pending);
        const digest = current.hasher.digest();
        if (digest.rows !== end.data.rows || digest.sha256 !== end.data.sha256) {
          throw at(`table ${current.spec.name} is damaged: ${digest.rows} rows read, the file says ${end.data.rows}; the checksums ${digest.sha256 === end.data.sha256 ? 'agree' : 'differ'}`);
        }
        await target.setSequence(current.spec, end.data.sequence);
        digests[current.spec.name] = digest;
        current = undefined;
        continue;
      }
      const section = sectionSchema.safeParse(value);
      if (section.success) {
        const spec = byName.get(section.data.table);
        const next = expected.find((name) => !(name in digests));
        if (!spec || section.data.table !== next) throw at(`expected the section of table ${next ?? '(none left)'}`);
        const columns = spec.columns.map((c) => c.name);
        if (section.data.columns.join(',') !== columns.join(',')) {
          throw at(`table ${spec.name} has columns ${section.data.columns.join(', ')} in the file but ${columns.join(', ')} here: export and import with the same version`);
        }
        // Rows the triggers wrote while their source tables were imported make way for the file's.
        if (spec.derived) await target.clear(spec);
        current = { spec, hasher: new TableHasher(), pending: [] };
        continue;
      }
      if (typeof value === 'object' && value !== null && 'complete' in value && value.complete === true) {
        const left = expected.filter((name) => !(name in digests));
        if (left.length > 0) throw at(`end marker before the tables ${left.join(', ')}`);
        complete = true;
        continue;
      }
      throw at('unexpected line');
    }
    if (!complete) throw new TransferRefusal(`${file} is incomplete (cut short, or not an export): nothing was imported`);

    for (const t of tables) {
      const hasher = new TableHasher();
      for await (const batch of target.rows(t)) for (const row of batch) hasher.add(row);
      const got = hasher.digest();
      const want = digests[t.name]!;
      if (got.rows !== want.rows || got.sha256 !== want.sha256) {
        throw new TransferRefusal(`after the import, table ${t.name} in ${target.where} does not match the file (${got.rows} rows, file ${want.rows}): nothing was imported`);
      }
    }
    await target.commit();
  } catch (err) {
    await target.rollback().catch(() => {});
    throw err;
  }
  return report(target, digests);
}

function report(engine: TransferEngine, tables: Record<string, TableDigest>): TransferReport {
  return { engine: engine.dialect, where: engine.where, tables, rows: Object.values(tables).reduce((n, d) => n + d.rows, 0) };
}
