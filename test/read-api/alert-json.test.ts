import { describe, expect, it } from 'vitest';
import type { AlertRow, AttachmentRow } from '../../src/domain/alert-store.js';
import { pushAlertJson, toAlertView } from '../../src/domain/alert-view.js';

const base: AlertRow = {
  id: 'alt_01M81KVKGV286JF2MCBJ8HQRZ5',
  channelId: 'ch_01M81KVKGV286JF2MCBJ8HQRZ5',
  kind: 'standard',
  title: 'Deploy "api" \u2028 done',
  level: 'SUCCESS',
  emoji: '🚀',
  message: 'line 1\nline 2 <b>',
  fieldsJson: JSON.stringify([{ label: 'a', value: '1', inline: true }]),
  linkUrl: 'https://x.example/?a=1&b=2',
  linkText: 'View',
  source: 'ci',
  actorJson: JSON.stringify({ email: 'jane@acme.com', name: 'Jane', initials: 'J' }),
  workflowRunId: null,
  workflowState: null,
  workflowStepsJson: null,
  workflowError: null,
  externalId: null,
  authorJson: null,
  replyToJson: null,
  activityKey: 'alt_01M81KVKGV286JF2MCBJ8HQRZ5',
  seq: 1,
  createdAt: Date.UTC(2026, 10, 22, 12, 0, 0, 123),
  updatedAt: Date.UTC(2026, 10, 22, 12, 0, 0, 123),
};
const atts: AttachmentRow[] = [
  { alertId: base.id, position: 0, mediaKey: 'a'.repeat(64) + '.png', mime: 'image/png', kind: 'image', name: 'chart "1"', size: 123 },
  { alertId: base.id, position: 1, mediaKey: 'b'.repeat(64) + '.mp3', mime: 'audio/mpeg', kind: 'audio', name: null, size: 9 },
];
const mediaUrl = (k: string) => `http://h.test/media/${k}`;

describe('pushAlertJson', () => {
  it.each([
    ['a full standard alert', base, atts, true],
    ['an empty standard alert', { ...base, emoji: '', message: null, fieldsJson: null, linkUrl: null, linkText: null, source: null, actorJson: null }, [], false],
    ['a workflow run', { ...base, workflowRunId: 'r1', workflowState: 'failed', workflowStepsJson: JSON.stringify([{ name: 's', state: 'failed', seconds: 1.5 }]), workflowError: 'boom\nend', updatedAt: base.createdAt + 5000 }, [], false],
    ['a chat message', { ...base, kind: 'chat', title: '', message: null, authorJson: JSON.stringify({ id: '1', name: 'Alice', bot: false, role: 'member' }), replyToJson: JSON.stringify({ messageId: 'alt_x', author: 'Bob', excerpt: 'hi…' }) }, atts, true],
    ['strings that need escaping or hold surrogates', { ...base, title: 'a\\b \u0001 \ud83d\ude80 lone \ud800 end', message: 'tab\there \udc00', source: '\u007f\u2029', linkText: '"' }, [{ ...atts[0]!, name: 'n\ud800', mime: 'image/png' }], false],
    ['a workflow run with a quoted id and state', { ...base, workflowRunId: 'run "1"\\', workflowState: 'running', workflowStepsJson: null, workflowError: null }, [], true],
    ['an edited chat message', { ...base, kind: 'chat', message: 'edited', authorJson: null, updatedAt: base.createdAt + 1 }, [], false],
  ] as [string, AlertRow, AttachmentRow[], boolean][])('renders %s exactly like toAlertView', (_name, row, a, isRead) => {
    const out: string[] = [];
    pushAlertJson(out, row, a, isRead, mediaUrl);
    const text = out.join('');
    expect(text).toBe(JSON.stringify(toAlertView(row, a, isRead, mediaUrl)));
  });
});
