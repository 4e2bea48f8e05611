import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlertRow, AttachmentRow } from '../../src/domain/alert-store.js';
import { ChatAlert, StandardAlert } from '../../src/domain/alert-shapes.js';
import { pushAlertJson, toAlertView } from '../../src/domain/alert-view.js';
import { Utf8Writer } from '../../src/lib/utf8-writer.js';

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
  threadId: null,
  threadJson: null,
  tagsJson: null,
  reactionsJson: null,
  reactionCount: 0,
  silencedBy: null,
  silenceComment: null,
  activityKey: 'alt_01M81KVKGV286JF2MCBJ8HQRZ5',
  seq: 1,
  createdAt: Date.UTC(2026, 10, 22, 12, 0, 0, 123),
  updatedAt: Date.UTC(2026, 10, 22, 12, 0, 0, 123),
  dedupKey: null,
  status: 'open',
  acknowledgedAt: null,
  acknowledgedByJson: null,
  resolvedAt: null,
  resolvedByJson: null,
  snoozedUntil: null,
  occurrences: 1,
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
    ['a silenced alert', { ...base, silencedBy: 'sil_1', silenceComment: 'maintenance "db" \n' }, [], false],
    ['a silenced chat message', { ...base, kind: 'chat', silencedBy: 'sil_2', silenceComment: '' }, [], false],
    ['a resolved alert, acknowledged and snoozed before', { ...base, status: 'resolved', acknowledgedAt: base.createdAt + 1, acknowledgedByJson: '{"id":"usr_1","name":"Max \\"M\\""}', resolvedAt: base.createdAt + 2, resolvedByJson: '{"id":null,"name":"Grafana"}', snoozedUntil: base.createdAt + 3, occurrences: 7, silencedBy: 'sil_1', silenceComment: 'maintenance' }, [], true],
    ['an edited chat message', { ...base, kind: 'chat', message: 'edited', authorJson: null, updatedAt: base.createdAt + 1 }, [], false],
  ] as [string, AlertRow, AttachmentRow[], boolean][])('renders %s exactly like toAlertView', (_name, row, a, isRead) => {
    const out: string[] = [];
    pushAlertJson(out, row, a, isRead, mediaUrl);
    const text = out.join('');
    expect(text).toBe(JSON.stringify(toAlertView(row, a, isRead, mediaUrl)));
  });
});

/** Any UTF-16 text, lone surrogates, quotes and control characters included: what escaping must get right. */
const anyText = fc.string({ unit: fc.oneof(fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), fc.constantFrom('"', '\\', '\n', '\u2028', '🚀')), maxLength: 40 });
const nullableText = fc.option(anyText, { nil: null });
const storedJson = <T>(value: fc.Arbitrary<T>) => fc.option(value.map((v) => JSON.stringify(v)), { nil: null });
const time = fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) });

const row: fc.Arbitrary<AlertRow> = fc.record({
  id: anyText,
  channelId: anyText,
  kind: fc.constantFrom('standard', 'chat'),
  title: anyText,
  level: fc.constantFrom('INFO', 'SUCCESS', 'WARNING', 'ERROR'),
  emoji: fc.oneof(fc.constant(''), anyText),
  message: nullableText,
  fieldsJson: storedJson(fc.array(fc.record({ label: anyText, value: anyText, inline: fc.boolean() }), { maxLength: 3 })),
  linkUrl: nullableText,
  linkText: nullableText,
  source: nullableText,
  actorJson: storedJson(fc.record({ name: anyText, email: anyText }, { requiredKeys: [] })),
  workflowRunId: nullableText,
  workflowState: fc.constantFrom('running', 'passed', 'failed'),
  workflowStepsJson: storedJson(fc.array(fc.record({ name: anyText, state: fc.constantFrom('pending', 'done'), seconds: fc.double({ min: 0, max: 1e6, noNaN: true }) }), { maxLength: 3 })),
  workflowError: nullableText,
  externalId: nullableText,
  authorJson: storedJson(fc.record({ id: anyText, name: anyText, bot: fc.boolean(), role: fc.constantFrom('owner', 'bot', 'member') })),
  replyToJson: storedJson(fc.record({ messageId: anyText, author: anyText, excerpt: anyText })),
  threadId: nullableText,
  threadJson: storedJson(fc.record({ id: anyText, name: anyText })),
  tagsJson: storedJson(fc.array(anyText, { maxLength: 3 })),
  reactionsJson: storedJson(fc.array(fc.record({ emoji: anyText, count: fc.integer({ min: 1, max: 1000 }) }), { maxLength: 3 })),
  reactionCount: fc.nat(),
  silencedBy: nullableText,
  silenceComment: nullableText,
  activityKey: anyText,
  seq: fc.nat(),
  createdAt: time,
  updatedAt: time,
  dedupKey: nullableText,
  status: fc.constantFrom('open', 'acknowledged', 'resolved'),
  acknowledgedAt: fc.option(time, { nil: null }),
  acknowledgedByJson: storedJson(fc.record({ id: fc.option(anyText, { nil: null }), name: anyText })),
  resolvedAt: fc.option(time, { nil: null }),
  resolvedByJson: storedJson(fc.record({ id: fc.option(anyText, { nil: null }), name: anyText })),
  snoozedUntil: fc.option(time, { nil: null }),
  occurrences: fc.integer({ min: 1, max: 1_000_000 }),
});
const attachment: fc.Arbitrary<AttachmentRow> = fc.record({
  alertId: anyText,
  position: fc.nat(),
  mediaKey: anyText,
  mime: anyText,
  kind: fc.constantFrom('image', 'video', 'audio'),
  name: nullableText,
  size: fc.nat(),
});

describe('the alert JSON on generated rows', () => {
  it('is JSON.stringify(toAlertView) byte for byte, and the view has the zod shape in its member order', () => {
    fc.assert(
      fc.property(row, fc.array(attachment, { maxLength: 3 }), fc.boolean(), (r, a, isRead) => {
        const out: string[] = [];
        pushAlertJson(out, r, a, isRead, mediaUrl);
        const view = toAlertView(r, a, isRead, mediaUrl);
        expect(out.join('')).toBe(JSON.stringify(view));
        const shape = r.kind === 'chat' ? ChatAlert : StandardAlert;
        expect(Object.keys(view)).toEqual(Object.keys(shape.shape));
        expect(shape.safeParse(view).success).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('a page written through the Utf8Writer (the read API\'s hot path)', () => {
  it('is the UTF-8 of the joined pieces byte for byte, across chunks and buffer growth', () => {
    // A small first buffer, so pages also cross the writer's growth and its chunk joins.
    const writer = new Utf8Writer(16);
    fc.assert(
      fc.property(fc.array(fc.tuple(row, fc.array(attachment, { maxLength: 3 }), fc.boolean()), { maxLength: 12 }), (page) => {
        const pieces: string[] = [];
        const out = writer.reset();
        for (const sink of [pieces, out]) {
          sink.push('{"alerts":[');
          page.forEach(([r, a, isRead], i) => {
            if (i > 0) sink.push(',');
            pushAlertJson(sink, r, a, isRead, mediaUrl);
          });
          sink.push(']}');
        }
        expect(out.bytes().equals(Buffer.from(pieces.join('')))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
