import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

describe('OpenAPI: the five drop-in paths', () => {
  it('documents each with its success answer and the shared refusals', async () => {
    h = await startHarness();
    const doc = (await (await h.call('GET', '/openapi.json')).json()) as {
      paths: Record<string, { post?: { summary: string; responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, { properties: Record<string, unknown> } | undefined> };
    };
    for (const format of ['slack', 'discord', 'alertmanager', 'grafana', 'github']) {
      const op = doc.paths[`/api/webhook/{token}/${format}`]?.post;
      expect(op, format).toBeDefined();
      expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(['400', '404', '413', '415', '429']));
    }
    const op = (format: string) => doc.paths[`/api/webhook/{token}/${format}`]!.post!;
    // The exact success answers: Slack's text/plain "ok", Discord's 204 or (with ?wait=true) its message object, GitHub's 401 for a bad signature.
    expect(Object.keys((op('slack').responses['200'] as { content: object }).content)).toEqual(['text/plain']);
    expect(Object.keys(op('discord').responses)).toEqual(expect.arrayContaining(['200', '204']));
    expect(JSON.stringify(op('discord').responses['200'])).toContain('#/components/schemas/DiscordMessage');
    expect(Object.keys(doc.components.schemas.DiscordMessage!.properties)).toEqual(expect.arrayContaining(['id', 'type', 'channel_id', 'author', 'content', 'embeds', 'attachments', 'timestamp', 'pinned']));
    expect(Object.keys(op('github').responses)).toContain('401');
    for (const format of ['alertmanager', 'grafana', 'github']) expect(Object.keys((op(format).responses['200'] as { content: object }).content), format).toEqual(['application/json']);
    const am = doc.paths['/api/webhook/{token}/alertmanager']!.post!;
    expect(am.summary).toMatch(/groupKey/);
    expect(JSON.stringify(am.responses['200'])).toContain('repeat');
    expect(JSON.stringify(doc.paths['/api/webhook/{token}/grafana']!.post)).toContain('imageURL');
    expect(JSON.stringify(doc.paths['/api/webhook/{token}/github']!.post)).toContain('workflow_job');
  });
});
