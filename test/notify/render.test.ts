import { describe, expect, it } from 'vitest';
import type { ChatAlert, StandardAlert } from '../../src/domain/alert-view.js';
import { chatAlertView, standardAlertView } from '../helpers/alert-views.js';
import { errorTail, formatSeconds, renderAlertEmail, renderDigestEmail, safeUrl, subjectFor } from '../../src/notify/email-render.js';

const channel = { name: 'Deploys', slug: 'deploys', icon: '🚀', workspaceName: 'Acme <Inc>' };
const base = standardAlertView;
const chatAlert = (message: string) => chatAlertView({ message });

describe('e-mail rendering', () => {
  it('subjects: level tag for alerts, run phase for workflow runs, author for chat messages', () => {
    expect(subjectFor({ ...base, level: 'ERROR', title: 'Disk\nfull' }, channel, 'alert.created')).toBe('[ERROR] #deploys — Disk full');
    const run = { ...base, workflow: { runId: 'r', state: 'running' as const, steps: [], error: null } };
    expect(subjectFor(run, channel, 'workflow.started')).toBe('[Started] #deploys — Deploy api');
    expect(subjectFor({ ...run, workflow: { ...run.workflow, state: 'passed' } }, channel, 'workflow.finished')).toBe('[Passed] #deploys — Deploy api');
    expect(subjectFor({ ...run, level: 'ERROR', workflow: { ...run.workflow, state: 'failed' } }, channel, 'workflow.finished')).toBe('[Failed] #deploys — Deploy api');
    expect(subjectFor({ ...base, title: 'x'.repeat(300) }, channel, 'alert.created')).toHaveLength('[INFO] #deploys — '.length + 120);
    const chat = chatAlert('the checkout page is blank');
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
      recipientEmail: 'jane@acme.test',
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

  it('the footer carries a notify set command that works as it stands: with --user and the recipient', () => {
    const mail = (recipientLevel: 'all' | 'important', recipientEmail: string) =>
      renderAlertEmail({ alert: base, channel, kind: 'alert.created', recipientLevel, recipientEmail });
    const all = mail('all', 'jane@acme.test');
    const command = 'notify set --user jane@acme.test --channel deploys --level important|none';
    expect(all.text).toContain(`You get all alerts from #deploys in Acme <Inc> by e-mail. To get fewer, ask an administrator to run: ${command}`);
    expect(all.html).toContain(command);
    // Already on important: the only way to get fewer is none.
    const important = mail('important', 'jane@acme.test');
    expect(important.text).toContain('You get warnings and errors from #deploys');
    expect(important.text).toContain('notify set --user jane@acme.test --channel deploys --level none');
    // An address a shell would split or expand is quoted, so the command can be pasted.
    expect(mail('all', "o'brien$x@acme.test").text).toContain(`notify set --user 'o'\\''brien$x@acme.test' --channel deploys`);
    // Chat messages and digests get the same footer.
    const chat = chatAlert('hi');
    expect(renderAlertEmail({ alert: chat, channel, kind: 'alert.created', recipientLevel: 'all', recipientEmail: 'jane@acme.test' }).text).toContain(command);
    const digest = renderDigestEmail({ channel, alerts: [base], windowStart: 0, windowEnd: 60_000, floodLimit: 5, recipientLevel: 'all', recipientEmail: 'jane@acme.test' });
    expect(digest.text).toContain(command);
    expect(digest.html).toContain(command);
  });

  it('the digest names the flood window it was configured with, not always "a minute"', () => {
    const intro = (windowMs: number) =>
      renderDigestEmail({
        channel,
        alerts: [base, { ...base, id: 'alt_3', title: 'Deploy web' }],
        windowStart: Date.UTC(2026, 0, 1, 12),
        windowEnd: Date.UTC(2026, 0, 1, 12) + windowMs,
        floodLimit: 3,
        recipientLevel: 'all',
        recipientEmail: 'jane@acme.test',
      }).text.split('\n')[0];
    expect(intro(60_000)).toBe('More than 3 alerts arrived in #deploys within 1 minute; the rest are listed here instead of one e-mail each.');
    expect(intro(30_000)).toContain('within 30 seconds;');
    expect(intro(5 * 60_000)).toContain('within 5 minutes;');
    expect(intro(90_000)).toContain('within 90 seconds;');
    expect(intro(2 * 3_600_000)).toContain('within 2 hours;');
    expect(intro(250)).toContain('within 250 milliseconds;');
  });

  it('every part of an e-mail escapes hostile sender text and drops non-http(s) URLs: alert, chat and digest', () => {
    const evil = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
    const alert: StandardAlert = {
      ...base,
      title: evil,
      message: evil,
      fields: [{ label: evil, value: evil, inline: true }],
      linkUrl: 'https://ok.test/',
      linkText: evil,
      source: evil,
      actor: { name: evil, company: evil, url: 'javascript:alert(3)', avatarUrl: 'javascript:alert(4)' },
      workflow: { runId: evil, state: 'failed', steps: [{ name: evil, state: 'failed', info: evil }], error: evil },
    };
    const chat = { ...chatAlert(evil), author: { id: '1', name: evil, bot: false, role: 'member' as const }, replyTo: { messageId: 'm', author: evil, excerpt: evil } };
    const input = (alert: StandardAlert | ChatAlert) => ({ alert, channel: { ...channel, workspaceName: evil }, kind: 'alert.created' as const, recipientLevel: 'all' as const, recipientEmail: 'jane@acme.test' });
    const mails = [
      renderAlertEmail(input(alert)),
      renderAlertEmail(input(chat)),
      renderDigestEmail({ channel: { ...channel, workspaceName: evil }, alerts: [alert, chat], windowStart: 0, windowEnd: 60_000, floodLimit: 5, recipientLevel: 'all', recipientEmail: 'jane@acme.test' }),
    ];
    for (const mail of mails) {
      expect(mail.html).not.toContain('<script');
      expect(mail.html).not.toContain('<img src=x');
      expect(mail.html).not.toContain('javascript:');
      expect(mail.html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
      expect(mail.html).not.toMatch(/\sclass=/); // e-mail is inline styles only
      // the text part carries the sender's text as written
      expect(mail.text).toContain(evil);
    }
  });

  it('a chat e-mail shows the author with the role and the message it replies to, in both parts', () => {
    const mail = renderAlertEmail({
      alert: { ...chatAlert('yes, since 9:00\nsee https://status.test/1'), replyTo: { messageId: 'm', author: 'Olive', excerpt: 'is checkout down?' } },
      channel,
      kind: 'alert.created',
      recipientLevel: 'all',
      recipientEmail: 'jane@acme.test',
    });
    expect(mail.text).toContain('Ana in #deploys · Acme <Inc> · 2026-01-01 12:00 UTC\n\n> Olive: is checkout down?\nyes, since 9:00\nsee https://status.test/1\n');
    expect(mail.html).toMatch(/>Ana<\/b><span[^>]*>member<\/span>/);
    expect(mail.html).toMatch(/<blockquote[^>]*>↩ <span[^>]*>Olive<\/span>: is checkout down\?<\/blockquote>/);
    // message text keeps its lines, and its URL is a link
    expect(mail.html).toMatch(/yes, since 9:00<br\/>see <a href="https:\/\/status\.test\/1"[^>]*>https:\/\/status\.test\/1<\/a>/);
  });

  it('the HTML part is a complete document with the inbox preview line', () => {
    const mail = renderAlertEmail({ alert: { ...base, message: 'Disk at 91%\non db-1' }, channel, kind: 'alert.created', recipientLevel: 'all', recipientEmail: 'jane@acme.test' });
    expect(mail.html.startsWith('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/>')).toBe(true);
    expect(mail.html).toContain('<title>[INFO] #deploys — Deploy api</title>');
    expect(mail.html).toMatch(/<div style="display:none;[^"]*">Disk at 91% on db-1<\/div>/);
    expect(mail.html.endsWith('</body></html>')).toBe(true);
  });
});
