import { describe, expect, it } from 'vitest';
import type { ChatAlert, StandardAlert } from '../../src/domain/alert-view.js';
import { errorTail, formatSeconds, renderAlertEmail, safeUrl, subjectFor } from '../../src/notify/email-render.js';

const channel = { name: 'Deploys', slug: 'deploys', icon: '🚀', workspaceName: 'Acme <Inc>' };
const base: StandardAlert = {
  id: 'alt_1',
  channelId: 'ch_1',
  title: 'Deploy api',
  level: 'INFO',
  emoji: null,
  message: null,
  fields: [],
  linkUrl: null,
  linkText: null,
  source: null,
  actor: null,
  workflow: null,
  attachments: [],
  isRead: false,
  createdAt: '2026-01-01T12:00:00.000Z',
  updatedAt: '2026-01-01T12:00:00.000Z',
};

describe('e-mail rendering', () => {
  it('subjects: level tag for alerts, run phase for workflow runs, author for chat messages', () => {
    expect(subjectFor({ ...base, level: 'ERROR', title: 'Disk\nfull' }, channel, 'alert.created')).toBe('[ERROR] #deploys — Disk full');
    const run = { ...base, workflow: { runId: 'r', state: 'running', steps: [], error: null } };
    expect(subjectFor(run, channel, 'workflow.started')).toBe('[Started] #deploys — Deploy api');
    expect(subjectFor({ ...run, workflow: { ...run.workflow, state: 'passed' } }, channel, 'workflow.finished')).toBe('[Passed] #deploys — Deploy api');
    expect(subjectFor({ ...run, level: 'ERROR', workflow: { ...run.workflow, state: 'failed' } }, channel, 'workflow.finished')).toBe('[Failed] #deploys — Deploy api');
    expect(subjectFor({ ...base, title: 'x'.repeat(300) }, channel, 'alert.created')).toHaveLength('[INFO] #deploys — '.length + 120);
    const chat: ChatAlert = {
      id: 'alt_2',
      channelId: 'ch_1',
      message: 'the checkout page is blank',
      createdAt: base.createdAt,
      editedAt: null,
      author: { id: '1', name: 'Ana', bot: false, role: 'member' },
      replyTo: null,
      attachments: [],
      isRead: false,
    };
    expect(subjectFor(chat, channel, 'alert.created')).toBe('[Message] #deploys — Ana: the checkout page is blank');
  });

  it('never puts a non-http(s) URL in an href or src', () => {
    expect(safeUrl('javascript:alert(1)')).toBeNull();
    expect(safeUrl('data:text/html,x')).toBeNull();
    expect(safeUrl('/relative')).toBeNull();
    const mail = renderAlertEmail({
      alert: { ...base, linkUrl: 'javascript:alert(1)', linkText: 'Click', actor: { name: 'x', avatarUrl: 'javascript:1', url: 'data:x' } },
      channel,
      kind: 'alert.created',
      recipientLevel: 'all',
    });
    expect(mail.html).not.toContain('javascript:');
    expect(mail.html).not.toContain('data:x');
    expect(mail.html).toContain('Acme &lt;Inc&gt;');
  });

  it('formats step durations and keeps the end of a long error log', () => {
    expect([0.4, 9, 42, 95, 3600 + 120].map(formatSeconds)).toEqual(['0.4s', '9s', '42s', '1m 35s', '1h 2m']);
    const log = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n');
    const tail = errorTail(log);
    expect(tail.startsWith('…\nline 61\n')).toBe(true);
    expect(tail.endsWith('line 100')).toBe(true);
    expect(errorTail('x'.repeat(10_000)).length).toBe(4_001);
  });
});
