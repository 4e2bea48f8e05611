/**
 * The documentation check (`npm run docs:check`, run by .ci/run before the tests): every relative link
 * and anchor in README.md, CHANGELOG.md and docs/ resolves inside the repository; docs/configuration.md
 * lists every variable src/config.ts reads; docs/admin-cli.md lists every admin CLI command; the README
 * stays a five-minute read (200 lines, no line over 400 characters); no table cell runs past two sentences.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const README_MAX_LINES = 200;
export const LINE_MAX_CHARS = 400;
export const CELL_MAX_SENTENCES = 2;
/** A verbatim copy of the HTTP contract: its links are checked, its wording is not ours to shorten. */
const VERBATIM = ['docs/spec/'];

export interface DocsCheckInput {
  /** The repository (or a copy of it) whose README.md, docs/ and src/config.ts are read. */
  root: string;
  /** The admin CLI's command names, from its own command table (`commandsFromHelp`). */
  commands: readonly string[];
}

/** Every problem found, one line each; empty when the docs pass. */
export function checkDocs({ root, commands }: DocsCheckInput): string[] {
  const problems: string[] = [];
  const files = docFiles(root);
  const headings = new Map<string, Set<string>>();
  const anchorsOf = (file: string): Set<string> => {
    let set = headings.get(file);
    if (!set) headings.set(file, (set = anchors(readFileSync(path.join(root, file), 'utf8'))));
    return set;
  };

  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const { target, line } of links(text)) problems.push(...checkLink(root, file, target, line, anchorsOf));
    if (!VERBATIM.some((v) => file.startsWith(v))) {
      for (const { cell, line } of tableCells(text)) {
        const n = sentences(cell);
        if (n > CELL_MAX_SENTENCES) problems.push(`${file}:${line}: a table cell of ${n} sentences (at most ${CELL_MAX_SENTENCES}): "${cell.slice(0, 80)}…"`);
      }
    }
  }

  const readme = path.join(root, 'README.md');
  if (existsSync(readme)) {
    const lines = readFileSync(readme, 'utf8').replace(/\n$/, '').split('\n');
    if (lines.length > README_MAX_LINES) problems.push(`README.md: ${lines.length} lines (at most ${README_MAX_LINES})`);
    lines.forEach((l, i) => {
      if (l.length > LINE_MAX_CHARS) problems.push(`README.md:${i + 1}: ${l.length} characters (at most ${LINE_MAX_CHARS})`);
    });
  } else problems.push('README.md: missing');

  problems.push(...checkListed(root, 'docs/configuration.md', configVariables(root), (name) => new RegExp('^\\|\\s*`' + escape(name) + '`\\s*\\|', 'm'), 'environment variable read by src/config.ts'));
  problems.push(...checkListed(root, 'docs/admin-cli.md', commands, (name) => new RegExp('`' + escape(name) + '[ `]'), 'admin CLI command'));
  return problems;
}

function checkListed(root: string, page: string, names: readonly string[], pattern: (name: string) => RegExp, what: string): string[] {
  const file = path.join(root, page);
  if (!existsSync(file)) return [`${page}: missing`];
  const text = readFileSync(file, 'utf8');
  return names.filter((n) => !pattern(n).test(text)).map((n) => `${page}: the ${what} \`${n}\` is not listed`);
}

/** README.md, CHANGELOG.md and every Markdown file under docs/, as repository-relative paths. */
export function docFiles(root: string): string[] {
  const out = ['README.md', 'CHANGELOG.md'].filter((f) => existsSync(path.join(root, f)));
  const walk = (dir: string) => {
    const abs = path.join(root, dir);
    if (!existsSync(abs)) return;
    for (const name of readdirSync(abs).sort()) {
      const rel = `${dir}/${name}`;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

/** The keys of envSchema in src/config.ts: the one reader of process.env. */
export function configVariables(root: string): string[] {
  const source = readFileSync(path.join(root, 'src/config.ts'), 'utf8');
  const start = source.indexOf('z.object({', source.indexOf('const envSchema'));
  if (start < 0) throw new Error('src/config.ts: envSchema = z.object({…}) not found; update scripts/docs-check.ts');
  const body = source.slice(start, source.indexOf('\n})', start));
  return [...body.matchAll(/^ {2}([A-Z][A-Z0-9_]*)\s*:/gm)].map((m) => m[1]!);
}

/** Command names from the CLI's global help (`runAdmin(['--help'])`): the lines "  <name>  <usage>". */
export function commandsFromHelp(help: string): string[] {
  const list = help.slice(help.indexOf('\nCommands:\n') + '\nCommands:\n'.length);
  return [...list.matchAll(/^ {2}(\S+(?: \S+)*?)(?: {2,}.*)?$/gm)].map((m) => m[1]!);
}

/** Lines outside fenced code blocks, with inline code spans blanked (links in code are examples). */
function prose(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) out.push({ line, n: i + 1 });
  });
  return out;
}

function links(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  for (const { line, n } of prose(text)) {
    const plain = line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
    for (const m of plain.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1]!, line: n });
    for (const m of plain.matchAll(/<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"/g)) out.push({ target: m[1]!, line: n });
  }
  return out;
}

function checkLink(root: string, file: string, target: string, line: number, anchorsOf: (f: string) => Set<string>): string[] {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return []; // https:, mailto: …: not ours to resolve
  const [pathPart = '', hash] = target.split('#', 2);
  const where = `${file}:${line}: ${target}`;
  const resolved = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
  if (resolved.startsWith('../') || path.posix.isAbsolute(resolved)) return [`${where}: points outside the repository`];
  if (!existsSync(path.join(root, resolved))) return [`${where}: ${resolved} does not exist`];
  if (hash === undefined) return [];
  if (!resolved.endsWith('.md')) return [`${where}: an anchor into a file that is not Markdown`];
  return anchorsOf(resolved).has(decodeURIComponent(hash)) ? [] : [`${where}: no heading "#${hash}" in ${resolved}`];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered -1, -2 … */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of prose(text)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    const explicit = [...line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)].map((m) => m[1]!);
    explicit.forEach((a) => out.add(a));
    if (!h) continue;
    const base = slug(h[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

export function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text only
    .replace(/<[^>]+>/g, '')
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

/** Stands in for a `|` that does not split cells. */
const PIPE = '\u0000';

/** The cells of every Markdown table row (separator rows left out), outside code blocks. */
function tableCells(text: string): { cell: string; line: number }[] {
  const out: { cell: string; line: number }[] = [];
  for (const { line, n } of prose(text)) {
    if (!/^\s*\|/.test(line) || /^\s*\|[\s:|-]+\|\s*$/.test(line)) continue;
    // `|` inside a code span or escaped does not split cells.
    const masked = line.replace(/`[^`]*`/g, (m) => m.replaceAll('|', PIPE)).replaceAll('\\|', `${PIPE}${PIPE}`);
    const cells = masked.trim().replace(/^\|/, '').replace(/\|$/, '').split('|');
    for (const c of cells) out.push({ cell: c.replaceAll(PIPE, '|').trim(), line: n });
  }
  return out;
}

const ABBREVIATIONS = /\b(e\.g|i\.e|etc|vs|cf)\.(?=\s)/gi;

/** Sentences in a cell: terminators followed by a space, plus the last sentence. Code and numbers do not count. */
export function sentences(cell: string): number {
  const text = cell.replace(/`[^`]*`/g, 'code').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(ABBREVIATIONS, '$1').trim();
  if (text === '') return 0;
  const inner = [...text.matchAll(/[.!?](?=\s+\S)/g)].length;
  return inner + 1;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function main(): Promise<void> {
  const { runAdmin } = await import('../src/cli/run.js');
  const help = await runAdmin(['--help']);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const problems = checkDocs({ root, commands: commandsFromHelp(help.stdout) });
  if (problems.length > 0) {
    process.stderr.write(`docs:check: ${problems.length} problem(s)\n${problems.join('\n')}\n`);
    process.exitCode = 1;
  } else process.stdout.write(`docs:check: ${docFiles(root).length} files, links, variables, commands and cells in order\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
