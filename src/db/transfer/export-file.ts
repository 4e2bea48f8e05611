import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import readline from 'node:readline';
import { z } from 'zod';
import type { Value } from './tables.js';

/**
 * The export file: NDJSON, one JSON value per line, readable with any JSON tool.
 *
 *   {"format":"alertbridge-export","version":1,"engine":"sqlite","exportedAt":"…","tables":["workspaces",…]}
 *   {"table":"workspaces","columns":["id","name",…]}          one section per table, in import order
 *   ["ws_…","Acme",…]                                          one line per row, values in column order
 *   {"end":"workspaces","rows":1,"sha256":"…","sequence":null}
 *   …
 *   {"complete":true}                                          a file without it was cut short
 *
 * `sha256` hashes each row as `JSON.stringify(values) + "\n"` in primary-key order: the same rows
 * give the same digest on either engine, so it checks the file, and after an import, the target.
 */
export const FORMAT = 'alertbridge-export';
export const VERSION = 1;

export const headerSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  engine: z.enum(['sqlite', 'postgres']),
  exportedAt: z.string(),
  tables: z.array(z.string()),
});
export const sectionSchema = z.object({ table: z.string(), columns: z.array(z.string()) });
export const endSchema = z.object({ end: z.string(), rows: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/), sequence: z.number().int().nullable() });
export const rowSchema = z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]));

export interface TableDigest {
  rows: number;
  sha256: string;
}

/** Row count and digest of one table, fed row by row. */
export class TableHasher {
  private readonly hash: Hash = createHash('sha256');
  rows = 0;

  /** Returns the row's line (without the newline), the exact text that was hashed. */
  add(values: readonly Value[]): string {
    const line = JSON.stringify(values);
    this.hash.update(line + '\n');
    this.rows++;
    return line;
  }

  digest(): TableDigest {
    return { rows: this.rows, sha256: this.hash.digest('hex') };
  }
}

/**
 * Writes to `<file>.partial` (created exclusively) and renames to `file` when complete, so an
 * export that fails half-way leaves no file that looks whole.
 */
export class ExportWriter {
  private readonly fd: number;
  private readonly partial: string;
  private buffer: string[] = [];
  private size = 0;

  constructor(private readonly file: string) {
    this.partial = `${file}.partial`;
    this.fd = fs.openSync(this.partial, 'wx', 0o600);
  }

  line(text: string): void {
    this.buffer.push(text);
    this.size += text.length;
    if (this.size > 1 << 20) this.flush();
  }

  json(value: unknown): void {
    this.line(JSON.stringify(value));
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    fs.writeSync(this.fd, this.buffer.join('\n') + '\n');
    this.buffer = [];
    this.size = 0;
  }

  finish(): void {
    this.flush();
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    fs.renameSync(this.partial, this.file);
  }

  abandon(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
    fs.rmSync(this.partial, { force: true });
  }
}

/** The file's lines, parsed, with their line numbers for messages. */
export async function* readExport(file: string): AsyncIterable<{ n: number; value: unknown }> {
  const input = fs.createReadStream(file, { encoding: 'utf8' });
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const text of lines) {
      n++;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new Error(`line ${n}: not JSON`);
      }
      yield { n, value };
    }
  } finally {
    lines.close();
    input.destroy();
  }
}
