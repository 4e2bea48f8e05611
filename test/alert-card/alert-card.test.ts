import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatAlert, StandardAlert } from '../../src/domain/alert-view.js';
import { chatAlertView, standardAlertView } from '../helpers/alert-views.js';
import { AlertCard, initialsOf, linkify, plainText, toCardModel, type Styling } from '../../src/alert-card/index.js';
import { renderHtml } from '../../src/lib/html.js';

const STYLINGS: Styling[] = ['inline', 'classes'];

const base = standardAlertView;
const chat = chatAlertView({
  author: { id: '1', name: 'Ana Lima', bot: false, role: 'member' },
  replyTo: { messageId: 'm1', author: 'Olive', excerpt: 'is anything broken?' },
});
const channel = { icon: '🚀', slug: 'deploys', workspaceName: 'Acme' };

const render = (alert: StandardAlert | ChatAlert, styling: Styling) => renderHtml(AlertCard({ card: toCardModel(alert), styling, channel }));

const XSS = '<script>alert(1)</script>';
const BREAKOUT = '"><img src=x onerror=alert(1)>';
/** Every field a sender controls, hostile. */
const hostile: StandardAlert = {
  ...base,
  title: `${XSS} ${BREAKOUT}`,
  emoji: BREAKOUT,
  message: `${BREAKOUT}\njavascript:alert(1) and https://ok.test/"onmouseover="x`,
  fields: [
    { label: XSS, value: BREAKOUT, inline: true },
    { label: BREAKOUT, value: XSS, inline: false },
  ],
  linkUrl: 'javascript:alert(1)',
  linkText: BREAKOUT,
  source: XSS,
  actor: { name: BREAKOUT, email: XSS, company: BREAKOUT, url: 'javascript:alert(1)', avatarUrl: 'javascript:alert(2)', initials: '<b>' },
  workflow: { runId: BREAKOUT, state: 'failed', steps: [{ name: XSS, state: 'failed', info: BREAKOUT, seconds: 3 }], error: BREAKOUT },
  attachments: [
    { url: 'javascript:alert(3)', mime: 'image/png', type: 'image', name: BREAKOUT, size: 1 },
    { url: 'https://media.test/a.png', mime: 'image/png', type: 'image', name: BREAKOUT, size: 1 },
  ],
};
const hostileChat: ChatAlert = {
  ...chat,
  message: `${XSS}\n${BREAKOUT}`,
  author: { ...chat.author, name: BREAKOUT },
  replyTo: { messageId: 'm', author: XSS, excerpt: BREAKOUT },
  attachments: [
    { url: 'data:text/html,<script>x</script>', mime: 'text/html' },
    { url: 'https://media.test/v.mp4', mime: 'video/mp4' },
  ],
};

/**
 * The elements and attributes of rendered markup. Attribute values are always
 * double-quoted by the renderer, and a `"` inside one is escaped, so this split is
 * exact for our output (and text that merely looks like markup is not matched).
 */
function tags(html: string): { name: string; attrs: [string, string][] }[] {
  return [...html.matchAll(/<([a-z][a-z0-9]*)((?:\s[a-z-]+(?:="[^"]*")?)*)\s*\/?>/g)].map((m) => ({
    name: m[1]!,
    attrs: [...m[2]!.matchAll(/\s([a-z-]+)(?:="([^"]*)")?/g)].map((a) => [a[1]!, a[2] ?? ''] as [string, string]),
  }));
}

/** Markup (not text) an attacker would need: a script element, an event-handler attribute, a non-http(s) URL. */
function expectNoInjectedMarkup(html: string) {
  // every "<" in the output opens one of our tags: sender text has none left
  expect(html.split('<').length - 1).toBe(tags(html).length + (html.match(/<\//g) ?? []).length);
  const all = tags(html);
  expect(all.map((t) => t.name)).not.toContain('script');
  expect(all.flatMap((t) => t.attrs.map(([k]) => k)).filter((k) => k.startsWith('on'))).toEqual([]);
  const urls = all.flatMap((t) => t.attrs.filter(([k]) => k === 'href' || k === 'src').map(([, v]) => v));
  expect(urls.length).toBeGreaterThan(0);
  for (const url of urls) expect(url).toMatch(/^https?:\/\//);
}

describe('alert card: nothing the sender writes becomes markup', () => {
  for (const styling of STYLINGS) {
    it(`hostile text is escaped and hostile URLs are dropped (${styling})`, () => {
      const html = render(hostile, styling);
      expectNoInjectedMarkup(html);
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
      expect(html).not.toContain('javascript:alert(2)'); // the avatar
      // javascript: in sender text stays text; the actor's javascript: profile is not a link
      expect(html).toContain('javascript:alert(1) and');
      expect(html).not.toMatch(/<a[^>]*>&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;<\/a>/); // the actor name is not linked
      // the URL ends where the quote begins: the quote cannot close the href
      expect(html).toContain('href="https://ok.test/"');
      // no avatar image without an http(s) URL: the sender's initials, escaped, stand in
      expect(html).toContain('&lt;b&gt;');
      // the only image is the http(s) one
      expect(html.match(/<img/g)).toHaveLength(1);
      expect(html).toContain('src="https://media.test/a.png"');
    });

    it(`hostile chat messages are escaped (${styling})`, () => {
      const html = render(hostileChat, styling);
      expectNoInjectedMarkup(html);
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;<br/>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
      expect(html).not.toContain('data:');
    });
  }
});

describe('alert card: the classes styling', () => {
  const rich: StandardAlert = {
    ...base,
    level: 'ERROR',
    message: 'Error rate above 5%.\nSee https://status.test/42.',
    fields: [
      { label: 'Region', value: 'eu-west-1', inline: true },
      { label: 'Runbook', value: 'restart', inline: false },
    ],
    linkUrl: 'https://status.test/42',
    linkText: 'Open',
    source: 'prometheus',
    actor: { name: 'Ada', email: 'ada@x.test', company: 'Analytical', avatarUrl: 'https://x.test/a.png', url: 'https://x.test/ada' },
    workflow: { runId: 'r1', state: 'failed', steps: [{ name: 'build', state: 'done', seconds: 4, info: 'cache hit' }, { name: 'test', state: 'failed' }], error: 'boom' },
    attachments: [
      { url: 'https://m.test/a.png', mime: 'image/png', type: 'image', name: 'graph', size: 1 },
      { url: 'https://m.test/a.mp4', mime: 'video/mp4', type: 'video', name: null, size: 1 },
      { url: 'https://m.test/a.ogg', mime: 'audio/ogg', type: 'audio', name: 'voice', size: 1 },
    ],
  };
  const pages = [
    render(rich, 'classes'),
    render({ ...rich, actor: { name: 'Bo' } }, 'classes'),
    render({ ...chat, editedAt: base.createdAt }, 'classes'),
    // a running run (the badge's spinner) in a flat card
    renderHtml(AlertCard({ card: toCardModel({ ...rich, workflow: { ...rich.workflow!, state: 'running' } }), styling: 'classes', flat: true })),
  ];

  it('emits no style attribute, so a page CSP needs no unsafe-inline', () => {
    for (const html of pages) {
      expect(html).not.toMatch(/\sstyle=/);
      expect(html).not.toMatch(/\s(?:bgcolor|cellpadding|cellspacing|valign)=/); // no e-mail table layout either
    }
    // the same card in e-mail styling is all inline styles
    expect(render(rich, 'inline')).toMatch(/<table role="presentation" width="600"[^>]*style="/);
    expect(render(rich, 'inline')).not.toContain('class=');
  });

  it('every class the components emit is styled by alert-card.css', () => {
    const css = readFileSync(new URL('../../src/alert-card/alert-card.css', import.meta.url), 'utf8');
    const classes = new Set(pages.flatMap((html) => [...html.matchAll(/\sclass="([^"]*)"/g)].flatMap((m) => m[1]!.split(' '))));
    expect(classes.size).toBeGreaterThan(30);
    const unstyled = [...classes].filter((c) => !new RegExp(`\\.${c}[\\s,{:.]`).test(css));
    expect(unstyled).toEqual([]);
  });

  it('pages get an article with the alert id, a <time> for relative times, native players and lazy thumbnails', () => {
    const html = pages[0]!;
    expect(html).toMatch(/^<article class="ab-card ab-tone-error" data-alert-id="alt_1" data-read="false">/);
    expect(html).toContain('<time datetime="2026-01-01T12:00:00.000Z" title="2026-01-01 12:00 UTC">2026-01-01 12:00 UTC</time>');
    expect(html).toMatch(/<a href="https:\/\/m\.test\/a\.png"[^>]*><img src="https:\/\/m\.test\/a\.png" alt="graph" loading="lazy"/);
    expect(html).toMatch(/<video controls="" preload="metadata" src="https:\/\/m\.test\/a\.mp4"/);
    expect(html).toMatch(/<audio controls="" preload="metadata" src="https:\/\/m\.test\/a\.ogg"/);
    expect(html).toContain('<a href="https://status.test/42" target="_blank" rel="noopener noreferrer" class="ab-button ab-tone-error">Open</a>');
    expect(html).toContain('See <a href="https://status.test/42" rel="noopener noreferrer nofollow" class="ab-text-link">https://status.test/42</a>.');
    expect(html).toContain('<img src="https://x.test/a.png" alt="" width="20" height="20" class="ab-avatar"/>By <a href="https://x.test/ada"');
    // without an avatar, the initials
    expect(pages[1]).toContain('<span aria-hidden="true" class="ab-initials">B</span>');
  });
});

describe('alert card: workflow runs', () => {
  const run: StandardAlert = {
    ...base,
    level: 'ERROR',
    workflow: {
      runId: 'deploy-7',
      state: 'failed',
      steps: [
        { name: 'build', state: 'done', seconds: 42 },
        { name: 'migrate', state: 'failed', seconds: 95 },
        { name: 'smoke test', state: 'skipped' },
        { name: 'notify', state: 'pending' },
      ],
      error: 'connecting\nError: migration 0042 <locked>',
    },
  };
  const expected = [
    ['build', 'done', '42s'],
    ['migrate', 'failed', '1m 35s'],
    ['smoke test', 'skipped', ''],
    ['notify', 'pending', ''],
  ] as const;

  it('each step shows its state and duration, in order, and the failed run its error text (classes)', () => {
    const html = render(run, 'classes');
    const steps = [...html.matchAll(/<li class="ab-step [^"]*" data-state="(\w+)">(.*?)<\/li>/g)];
    expect(steps.map((m) => m[1])).toEqual(expected.map((e) => e[1]));
    steps.forEach((m, i) => {
      const [name, state, duration] = expected[i]!;
      expect(m[2]).toContain(`<span class="ab-step-name">${name}</span>`);
      expect(m[2]).toContain(`>${state}</span>`);
      expect(m[2]).toContain(`<span class="ab-step-duration">${duration}</span>`);
    });
    expect(html).toContain('<span class="ab-step-state ab-tone-error">failed</span>');
    expect(html).toContain('Run <code class="ab-run-id">deploy-7</code> · <b class="ab-run-state ab-tone-error">failed</b>');
    expect(html).toContain('Error log (tail) · failed at migrate');
    expect(html).toContain('<pre class="ab-error-log">connecting\nError: migration 0042 &lt;locked&gt;</pre>');
  });

  it('the same in the e-mail table, one row per step', () => {
    const html = render(run, 'inline');
    const rows = [...html.matchAll(/<tr><td width="24"[^>]*>(.)<\/td><td[^>]*>([^<]*)<\/td><td[^>]*>(\w+)<\/td><td[^>]*>([^<]*)<\/td><\/tr>/g)];
    expect(rows.map((r) => [r[2], r[3], r[4]])).toEqual(expected.map((e) => [...e]));
    expect(rows.map((r) => r[1])).toEqual(['✓', '✗', '–', '○']);
    expect(html).toContain('Error: migration 0042 &lt;locked&gt;</pre>');
  });

  it('a run that has not failed shows no error block', () => {
    for (const styling of STYLINGS) {
      const html = render({ ...run, workflow: { ...run.workflow!, state: 'running', error: 'partial log' } }, styling);
      expect(html).not.toContain('Error log');
      expect(html).not.toContain('partial log');
      expect(html).toContain('running');
    }
  });
});

describe('alert card: fields', () => {
  const fields: StandardAlert['fields'] = [
    { label: 'Region', value: 'eu-west-1', inline: true },
    { label: 'Zone', value: 'b', inline: true },
    { label: 'Pod', value: 'api-1', inline: true },
    { label: 'Node', value: 'n4', inline: true },
    { label: 'Runbook', value: 'restart it', inline: false },
    { label: 'Owner', value: 'ops', inline: true },
  ];

  it('inline fields sit side by side, three to a row; a non-inline field takes a row of its own (e-mail)', () => {
    const html = render({ ...base, fields }, 'inline');
    const rows = [...html.matchAll(/<tr>(<td valign="top"[^]*?)<\/tr>/g)]
      .map((m) => [...m[1]!.matchAll(/<div[^>]*>([^<]*)<\/div><div/g)].map((c) => c[1]))
      .filter((r) => r.length);
    expect(rows).toEqual([['Region', 'Zone', 'Pod'], ['Node'], ['Runbook'], ['Owner']]);
    expect(html).toMatch(/<td valign="top" width="100%" colspan="3"[^>]*><div[^>]*>Runbook/);
    // a short row keeps the grid's column widths with empty cells
    expect(html).toMatch(/>Node<\/div><div[^>]*>n4<\/div><\/td><td width="33%">\u00a0<\/td><td width="33%">\u00a0<\/td><\/tr>/);
  });

  it('pages get the same grid from classes: inline fields as grid cells, the wide one spanning', () => {
    const html = render({ ...base, fields }, 'classes');
    const cells = [...html.matchAll(/<div class="(ab-field(?:-wide)?)"><dt class="ab-field-label">(\w+)<\/dt><dd class="ab-field-value">([^<]*)<\/dd><\/div>/g)];
    expect(cells.map((c) => [c[1], c[2], c[3]])).toEqual([
      ['ab-field', 'Region', 'eu-west-1'],
      ['ab-field', 'Zone', 'b'],
      ['ab-field', 'Pod', 'api-1'],
      ['ab-field', 'Node', 'n4'],
      ['ab-field-wide', 'Runbook', 'restart it'],
      ['ab-field', 'Owner', 'ops'],
    ]);
  });
});

describe('alert card: chat messages', () => {
  for (const styling of STYLINGS) {
    it(`show the author with a role badge and the reply quote (${styling})`, () => {
      const html = render({ ...chat, author: { ...chat.author, role: 'owner' } }, styling);
      expect(html).toMatch(/>Ana Lima<\/b><span[^>]*>owner<\/span>/);
      expect(html).toMatch(/<blockquote[^>]*>↩ <span[^>]*>Olive<\/span>: is anything broken\?<\/blockquote>/);
      expect(html).toContain('the checkout page is blank');
      expect(html).toMatch(/<span aria-hidden="true"[^>]*>AL<\/span>/);
    });
  }
});

describe('linkify', () => {
  it('marks http(s) URLs, leaves trailing punctuation and everything else as text', () => {
    expect(linkify('see https://a.test/x. or (https://b.test/wiki/A_(b)), ok?\nftp://c.test javascript:alert(1)')).toEqual([
      [
        { text: 'see ' },
        { text: 'https://a.test/x', href: 'https://a.test/x' },
        { text: '. or (' },
        { text: 'https://b.test/wiki/A_(b)', href: 'https://b.test/wiki/A_(b)' },
        { text: '), ok?' },
      ],
      [{ text: 'ftp://c.test javascript:alert(1)' }],
    ]);
    expect(linkify('')).toEqual([[{ text: '' }]]);
  });
});

describe('initials', () => {
  it('first and last word, as the webhook derives them; an e-mail address by its local part', () => {
    expect(['Ada King Lovelace', 'ana', 'jane.doe@acme.test', 'ops@acme.test', 'élodie durand', '  ', '42'].map(initialsOf)).toEqual(['AL', 'A', 'JD', 'O', 'ÉD', '?', '4']);
    const card = toCardModel({ ...base, actor: { email: 'jane.doe@acme.test', initials: 'ABCDEFG' } });
    expect(card.kind === 'alert' && card.actor?.initials).toBe('ABC');
  });
});

describe('alert card: issue 25 mismatches', () => {
  const running: StandardAlert = { ...base, workflow: { runId: 'r9', state: 'running', steps: [{ name: 'build', state: 'running' }], error: null } };

  it('a running run shows its state with a spinner in the badge, not "INFO · run running"', () => {
    const html = render(running, 'classes');
    expect(html).toContain('<span class="ab-badge ab-tone-info"><span aria-hidden="true" class="ab-spinner"></span>running</span>');
    expect(html).not.toContain('INFO · run');
    // the step under way turns too
    expect(html).toContain('<li class="ab-step ab-tone-info" data-state="running"><span class="ab-step-symbol ab-tone-info" aria-hidden="true"><span class="ab-spinner"></span></span>');
    // e-mail cannot animate: the word alone
    expect(render(running, 'inline')).toMatch(/<span style="[^"]*">running<\/span>/);
    // a finished run keeps level and phase
    expect(render({ ...running, level: 'ERROR', workflow: { ...running.workflow!, state: 'failed' } }, 'classes')).toContain('>ERROR · run failed</span>');
  });

  it('a sender named both as source and actor is named once', () => {
    for (const styling of STYLINGS) {
      const html = render({ ...base, source: 'Deploy Bot', actor: { name: 'deploy bot' } }, styling);
      expect(html.match(/deploy bot/gi)).toHaveLength(1);
      expect(html).not.toContain('Source:');
      // different names: both shown
      expect(render({ ...base, source: 'Slack', actor: { name: 'Ann' } }, styling)).toContain('Source: <b');
    }
  });

  it('a masked link [label](url), as the Slack format writes <url|label>, shows its label as the link', () => {
    const html = render({ ...base, message: 'New review. [View review](https://example.com/r/1) now; see https://x.test too' }, 'classes');
    expect(html).toContain('New review. <a href="https://example.com/r/1" rel="noopener noreferrer nofollow" class="ab-text-link">View review</a> now;');
    expect(html).not.toContain('(https://example.com/r/1)');
    expect(html).toContain('<a href="https://x.test/" rel="noopener noreferrer nofollow" class="ab-text-link">https://x.test</a>');
    // not a web URL: left as text
    expect(render({ ...base, message: '[x](javascript:alert(1))' }, 'classes')).toContain('[x](javascript:alert(1))');
    // the e-mail's text part keeps the address
    expect(plainText(linkify('[View](https://e.test/a_(b)) ok'))).toBe('View (https://e.test/a_(b)) ok');
  });

  it('flat: the card without its own frame, for a place that frames it', () => {
    const html = renderHtml(AlertCard({ card: toCardModel(base), styling: 'classes', flat: true }));
    expect(html).toMatch(/^<article class="ab-card ab-tone-info ab-flat"/);
  });
});
