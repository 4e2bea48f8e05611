import { describe, expect, it } from 'vitest';
import { mapSlack } from '../../src/domain/formats/slack.js';
import { AppError } from '../../src/domain/errors.js';
import { expectWebhookValid, fixture } from './fixture.js';

describe('Slack incoming-webhook body', () => {
  it('text only: first line is the title, the whole text the message, mrkdwn made plain', () => {
    const c = mapSlack(fixture('slack', 'text'));
    expect(c.payload.title).toBe('Danny Torrence left a 1 star review for your property.');
    expect(c.payload.message).toBe('Danny Torrence left a 1 star review for your property.\n[View review](https://example.com) 🚨 urgent');
    expect(c.payload.level).toBe('info');
    expectWebhookValid(c.payload);
  });

  it('blocks: header title, section fields as label/value, context in the message, button as link', () => {
    const c = mapSlack(fixture('slack', 'blocks'));
    expect(c.payload.title).toBe('New request');
    expect(c.payload.fields).toEqual([
      { label: 'Type:', value: 'Paid Time Off', inline: true },
      { label: 'Created by:', value: '<example.com|Fred Enriquez>', inline: true },
      { label: 'When:', value: 'Aug 10 - Aug 13', inline: true },
    ]);
    expect(c.payload.message).toBe(
      'New Paid Time Off request from Fred Enriquez\n\n[View request](https://example.com)\n\nSubmitted by HR bot',
    );
    expect(c.payload.linkUrl).toBe('https://example.com/approve');
    expect(c.payload.linkText).toBe('Approve');
    expectWebhookValid(c.payload);
  });

  it('a section field without a line break goes to the message', () => {
    const c = mapSlack({ blocks: [{ type: 'section', fields: [{ type: 'mrkdwn', text: '*just words*' }, { type: 'mrkdwn', text: '*K*\nv' }] }] });
    expect(c.payload.title).toBe('just words');
    expect(c.payload.message).toBe('just words');
    expect(c.payload.fields).toEqual([{ label: 'K', value: 'v', inline: true }]);
  });

  it('legacy attachments: colour level, title and link, fields, text, footer, images, username and icon_emoji', () => {
    const c = mapSlack(fixture('slack', 'attachments'));
    expect(c.payload).toMatchObject({
      title: 'Slack API Documentation',
      level: 'success',
      linkUrl: 'https://api.slack.com/',
      source: 'ghost-bot',
      fields: [{ label: 'Priority', value: 'High', inline: false }],
      actor: { name: 'Bobby Tables', url: 'http://flickr.com/bobby/', avatarUrl: 'http://flickr.com/icons/bobby.jpg' },
    });
    expect(c.payload.message).toBe(
      'Optional text that appears above the attachment block\n\nOptional text that appears within the attachment\n\nSlack API',
    );
    // :ghost: is not a spec name, but one of Slack's common shortcodes: translated, as the webhook does.
    expect(c.payload.emoji).toBe('👻');
    expect(mapSlack({ text: 'x', icon_emoji: ':no_such_emoji:' }).payload.emoji).toBeUndefined();
    expect(c.attachmentUrls).toEqual(['http://my-website.com/path/to/image.jpg', 'http://example.com/path/to/thumb.png']);
    expectWebhookValid(c.payload);
  });

  it.each([
    ['danger', 'error'],
    ['warning', 'warning'],
    ['good', 'success'],
    ['#439FE0', 'info'],
  ])('attachment color %s → %s', (color, level) => {
    expect(mapSlack({ attachments: [{ color, text: 'x' }] }).payload.level).toBe(level);
  });

  it('icon_emoji resolves through the emoji names', () => {
    expect(mapSlack({ text: 'hi', icon_emoji: ':rocket:' }).payload.emoji).toBe('🚀');
  });

  it('cuts a long first line to 200 with an ellipsis and keeps the whole text (to 5000) as the message', () => {
    const long = 'x'.repeat(300);
    const c = mapSlack({ text: `${long}\n${'y'.repeat(6000)}` });
    expect(c.payload.title).toHaveLength(200);
    expect(c.payload.title.endsWith('…')).toBe(true);
    expect(c.payload.message).toHaveLength(5000);
    expect(c.payload.message!.endsWith('…')).toBe(true);
    expectWebhookValid(c.payload);
  });

  it('drops fields beyond 25 and cuts labels and values', () => {
    const fields = Array.from({ length: 30 }, (_, i) => ({ title: `L${i}${'l'.repeat(150)}`, value: 'v'.repeat(1500), short: true }));
    const c = mapSlack({ attachments: [{ title: 'many', fields }] });
    expect(c.payload.fields).toHaveLength(25);
    expect(c.payload.fields![0]!.label).toHaveLength(100);
    expect(c.payload.fields![0]!.value).toHaveLength(1000);
    expectWebhookValid(c.payload);
  });

  it('coerces wrong types instead of refusing them', () => {
    const c = mapSlack({ text: 42, blocks: 'nope', attachments: [null, { color: 7, title: ['x'], text: true }], username: { a: 1 } });
    expect(c.payload.title).toBe('42');
    expect(c.payload.message).toBe('42\n\ntrue');
    expect(c.payload.source).toBeUndefined();
    expectWebhookValid(c.payload);
  });

  it('refuses a body with no text, blocks or attachments, and blocks with nothing to show', () => {
    for (const body of [{}, { text: '   ' }, { username: 'x' }, { blocks: [{ type: 'divider' }] }, [], 'text']) {
      expect(() => mapSlack(body)).toThrow(AppError);
    }
  });

  it('drops a button link that is not http(s)', () => {
    const c = mapSlack({ text: 'x', blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Go' }, url: 'javascript:alert(1)' }] }] });
    expect(c.payload.linkUrl).toBeUndefined();
    expect(c.payload.linkText).toBeUndefined();
  });
});

describe('Slack prototype-key hostility', () => {
  it('a body full of __proto__ and constructor keys maps as data and pollutes nothing', () => {
    const body: unknown = JSON.parse(
      '{"__proto__":{"text":"evil"},"text":"hi","constructor":{"x":1},"attachments":[{"__proto__":{"color":"danger"},"fields":[{"title":"__proto__","value":"v"}]}]}',
    );
    const c = mapSlack(body);
    expect(c.payload.title).toBe('hi');
    expect(c.payload.level).toBe('info');
    expect(c.payload.fields).toEqual([{ label: '__proto__', value: 'v', inline: false }]);
    expect(({} as Record<string, unknown>).color).toBeUndefined();
    expect(({} as Record<string, unknown>).text).toBeUndefined();
  });
});
