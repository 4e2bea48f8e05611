import { describe, expect, it } from 'vitest';
import { DiscordBody, mapDiscord } from '../../src/domain/formats/discord.js';
import { discordMessage, snowflake } from '../../src/domain/formats/discord-message.js';
import { AppError } from '../../src/domain/errors.js';
import { expectWebhookValid, fixture } from './fixture.js';

describe('Discord execute-webhook body', () => {
  it("maps Discord's documented embed example", () => {
    const c = mapDiscord(fixture('discord', 'embeds'));
    expect(c.payload).toMatchObject({
      title: 'Title',
      level: 'warning', // 15258703 is #e8d44f, hue 52°
      linkUrl: 'https://google.com/',
      source: 'Webhook',
      actor: { name: 'Birdie♫', url: 'https://www.reddit.com/r/cats/', avatarUrl: 'https://i.imgur.com/R66g1Pe.jpg' },
    });
    expect(c.payload.message).toMatch(/^Text message\. Up to 2000 characters\.\n\nText message\. You can use Markdown here\./);
    expect(c.payload.message).toMatch(/Woah! So cool! :smirk:$/);
    expect(c.payload.fields).toHaveLength(4);
    expect(c.payload.fields![0]).toEqual({ label: 'Text', value: 'More text', inline: true });
    expect(c.payload.fields![3]).toEqual({ label: 'Thanks!', value: "You're welcome :wink:", inline: false });
    expect(c.attachmentUrls).toEqual([
      'https://upload.wikimedia.org/wikipedia/commons/5/5a/A_picture_from_China_every_day_108.jpg',
      'https://upload.wikimedia.org/wikipedia/commons/3/38/4-Nature-Wallpapers-2014-1_ukaavUI.jpg',
    ]);
    expectWebhookValid(c.payload);
  });

  it('content only: first line is the title, all of it the message; no colour is info', () => {
    const c = mapDiscord(fixture('discord', 'content'));
    expect(c.payload).toMatchObject({ title: 'Deploy finished on prod', message: 'Deploy finished on prod\nAll 12 services healthy', level: 'info', source: 'CI' });
    expect(c.payload.actor).toBeUndefined();
    expectWebhookValid(c.payload);
  });

  it('the webhook avatar is the actor when no embed has an author', () => {
    const c = mapDiscord({ content: 'x', username: 'bot', avatar_url: 'https://a.test/a.png' });
    expect(c.payload.actor).toEqual({ name: 'bot', avatarUrl: 'https://a.test/a.png' });
  });

  it.each([
    [0xff0000, 'error'],
    [0x00ff00, 'success'],
    [0x5865f2, 'info'],
    ['#ffa500', 'warning'],
  ])('embed colour %s → %s', (color, level) => {
    expect(mapDiscord({ embeds: [{ title: 't', color }] }).payload.level).toBe(level);
  });

  it('a message of files alone is an alert; nothing at all is refused', () => {
    expect(mapDiscord({}, { fileCount: 2 }).payload.title).toBe('2 files');
    for (const body of [{}, { content: '  ' }, { embeds: [{}] }, null, 'x']) {
      expect(() => mapDiscord(body)).toThrow(AppError);
    }
  });

  it('cuts, caps and drops instead of refusing', () => {
    const c = mapDiscord({
      content: 'c'.repeat(9000),
      embeds: [{ title: 't'.repeat(400), url: 'not a url', fields: Array.from({ length: 40 }, (_, i) => ({ name: `n${i}`, value: i })) }],
      username: 'u'.repeat(300),
    });
    expect(c.payload.title).toHaveLength(200);
    expect(c.payload.message).toHaveLength(5000);
    expect(c.payload.fields).toHaveLength(25);
    expect(c.payload.fields![1]).toEqual({ label: 'n1', value: '1', inline: false });
    expect(c.payload.linkUrl).toBeUndefined();
    expect(c.payload.source).toHaveLength(200);
    expectWebhookValid(c.payload);
  });

  it('keeps at most 10 distinct image URLs', () => {
    const embeds = Array.from({ length: 12 }, (_, i) => ({ title: 't', image: { url: `https://i.test/${i}.png` }, thumbnail: { url: 'https://i.test/0.png' } }));
    const c = mapDiscord({ embeds });
    expect(c.attachmentUrls).toHaveLength(10);
    expect(new Set(c.attachmentUrls).size).toBe(10);
  });
});

describe('the ?wait=true message object', () => {
  const createdAt = Date.parse('2026-11-23T12:00:00.123Z');
  const body = DiscordBody.parse({ content: 'hello @everyone', embeds: [{ title: 'T', color: 255, fields: [{ name: 'a', value: 'b' }] }] });
  const msg = discordMessage({
    alertId: 'alt_1',
    createdAt,
    channelId: 'ch_1',
    webhookKey: 'ch_1',
    username: 'CI',
    body,
    attachments: [{ id: 'm1', filename: 'a.png', size: 3, url: 'https://h.test/media/m1', contentType: 'image/png' }],
  });

  it("has Discord's documented message shape", () => {
    expect(msg).toMatchObject({
      type: 0,
      content: 'hello @everyone',
      author: { username: 'CI', bot: true },
      embeds: [{ type: 'rich', title: 'T', color: 255, fields: [{ name: 'a', value: 'b', inline: false }] }],
      attachments: [{ filename: 'a.png', size: 3, url: 'https://h.test/media/m1', content_type: 'image/png' }],
      pinned: false,
      mention_everyone: true,
      mentions: [],
      mention_roles: [],
      tts: false,
      flags: 0,
      timestamp: '2026-11-23T12:00:00.123000+00:00',
      edited_timestamp: null,
    });
    for (const id of [msg.id, msg.channel_id, msg.author.id, msg.webhook_id, msg.attachments[0]!.id]) expect(id).toMatch(/^\d{17,20}$/);
    expect(msg.author.id).toBe(msg.webhook_id);
  });

  it('snowflakes carry the time like Discord and are stable per key', () => {
    const id = BigInt(snowflake('alt_1', createdAt));
    expect(Number((id >> 22n) + 1420070400000n)).toBe(createdAt);
    expect(snowflake('alt_1', createdAt)).toBe(msg.id);
    expect(snowflake('alt_2', createdAt)).not.toBe(msg.id);
  });
});
