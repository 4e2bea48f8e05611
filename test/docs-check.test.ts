import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../src/cli/run.js';
import { checkDocs, commandsFromHelp, configVariables, sentences, slug } from '../scripts/docs-check.js';

const REPO = path.resolve(import.meta.dirname, '..');
let commands: string[] = [];
const copies: string[] = [];

beforeAll(async () => {
  commands = commandsFromHelp((await runAdmin(['--help'])).stdout);
});

afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of what the check reads: README.md, CHANGELOG.md, docs/ and src/config.ts. */
function copyOfTree(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'docs-check-'));
  copies.push(root);
  for (const f of ['README.md', 'CHANGELOG.md', 'docs', 'src/config.ts']) cpSync(path.join(REPO, f), path.join(root, f), { recursive: true });
  return root;
}

/** What the check finds in an edited copy beyond what it finds in an untouched one: the edit's own problems. */
function problemsAddedBy(root: string): string[] {
  const baseline = new Set(checkDocs({ root: copyOfTree(), commands }));
  return checkDocs({ root, commands }).filter((p) => !baseline.has(p));
}

function edit(root: string, file: string, change: (text: string) => string): void {
  const abs = path.join(root, file);
  writeFileSync(abs, change(readFileSync(abs, 'utf8')));
}

describe('docs:check', () => {
  it('reads the command table and the variables it checks against', () => {
    expect(commands).toContain('workspace create');
    expect(commands).toContain('stats');
    expect(commands).toContain('channel set-signing-secret');
    expect(commands.length).toBeGreaterThanOrEqual(30);
    expect(configVariables(REPO)).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'RETENTION_INTERVAL_MS']));
  });

  it('passes on the repository as it is', () => {
    expect(checkDocs({ root: REPO, commands })).toEqual([]);
  });

  it('passes on an untouched copy (the baseline of the failures below)', () => {
    expect(checkDocs({ root: copyOfTree(), commands })).toEqual([]);
  });

  it('fails on a broken relative link, a missing anchor and a link out of the repository', () => {
    const root = copyOfTree();
    edit(root, 'README.md', (t) => t.replace('](docs/configuration.md)', '](docs/configuraton.md)'));
    edit(root, 'docs/operations.md', (t) => `${t}\nSee [the settings](configuration.md#no-such-heading) and [the spec](../../shared/spec/alert-api.md).\n`);
    const problems = problemsAddedBy(root).join('\n');
    expect(problems).toContain('docs/configuraton.md does not exist');
    expect(problems).toContain('no heading "#no-such-heading" in docs/configuration.md');
    expect(problems).toContain('../../shared/spec/alert-api.md: points outside the repository');
  });

  it('fails on a variable src/config.ts reads that docs/configuration.md does not list', () => {
    const root = copyOfTree();
    edit(root, 'src/config.ts', (t) => t.replace('  HOST: z.string()', '  QUIET_HOURS: z.coerce.number().default(0),\n  HOST: z.string()'));
    expect(problemsAddedBy(root)).toEqual(['docs/configuration.md: the environment variable read by src/config.ts `QUIET_HOURS` is not listed']);
  });

  it('fails on an admin command docs/admin-cli.md does not list', () => {
    const root = copyOfTree();
    edit(root, 'docs/admin-cli.md', (t) => t.replaceAll('`alert delete', '`remove alert'));
    expect(problemsAddedBy(root)).toEqual(['docs/admin-cli.md: the admin CLI command `alert delete` is not listed']);
  });

  it('fails on a README over 200 lines, a line over 400 characters and a table cell of three sentences', () => {
    const root = copyOfTree();
    edit(root, 'README.md', (t) => `${t}${'\nmore'.repeat(200)}\n${'x'.repeat(401)}\n\n| a | b |\n|---|---|\n| One. Two. Three. | fine |\n`);
    const problems = problemsAddedBy(root).join('\n');
    expect(problems).toMatch(/README\.md: \d+ lines \(at most 200\)/);
    expect(problems).toMatch(/README\.md:\d+: 401 characters/);
    expect(problems).toContain('a table cell of 3 sentences');
  });
});

describe('GitHub heading slugs and sentence counts', () => {
  it('makes the anchors GitHub makes', () => {
    expect(slug('Running more than one node')).toBe('running-more-than-one-node');
    expect(slug('Operations: backup and data')).toBe('operations-backup-and-data');
    expect(slug('`Idempotency-Key`')).toBe('idempotency-key');
    expect(slug('Health and readiness (/healthz, /readyz)')).toBe('health-and-readiness-healthz-readyz');
    expect(slug('Continuous off-site replication with Litestream')).toBe('continuous-off-site-replication-with-litestream');
  });

  it('counts sentences, not abbreviations, numbers or code', () => {
    expect(sentences('one sentence, e.g. with an abbreviation')).toBe(1);
    expect(sentences('Two. Sentences.')).toBe(2);
    expect(sentences('a size of 1.5 MB and `a. b. c.` in code')).toBe(1);
    expect(sentences('One. Two. Three')).toBe(3);
  });
});
