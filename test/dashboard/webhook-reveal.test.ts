import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/**
 * A member's own API token lists every channel they can see with its webhookToken (the spec requires
 * the field), so the dashboard lets members reveal the webhook URL too, instead of claiming only
 * owners and admins can see it. Rotating it stays with owners and admins.
 */
let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('webhook URL for members', () => {
  it('a member reveals the same webhook URL the API gives their token, masked until asked, and cannot rotate it', async () => {
    h = await startDashboard({ serve: false });
    const seed = await seedWorkspace(h.services);
    const member = new DashClient(h);
    await member.signInWithLink(seed.member.id);
    const g = seed.general.id;

    const settings = await member.get(`/channels/${g}`);
    expect(settings.res.status).toBe(200);
    expect(settings.html).not.toContain('Only owners and admins can see the webhook URL');
    expect(settings.html).not.toContain(seed.general.webhookToken);
    expect(settings.html).toContain(`href="/channels/${g}/webhook"`);
    expect(settings.html).toContain('Reveal webhook URL');
    expect(settings.html).not.toContain('Rotate webhook URL');

    const api = await h.app.request('/api/channels', { headers: { authorization: `Bearer ${seed.memberToken}` } });
    expect(api.status).toBe(200);
    const fromApi = (await bodyOf.channels(api)).find((ch) => ch.id === g)!.webhookToken;
    expect(fromApi).toBe(seed.general.webhookToken);

    const revealed = await member.get(`/channels/${g}/webhook`);
    expect(revealed.res.status).toBe(200);
    expect(revealed.html).toContain(`${h.config.publicUrl}/api/webhook/${fromApi}`);
    expect(revealed.html).toContain('Copy webhook URL');

    // A private channel they are not in stays not found, as in the API; rotating stays with managers.
    expect((await member.get(`/channels/${seed.secret.id}/webhook`)).res.status).toBe(404);
    const rotate = await member.post(`/channels/${g}/rotate`, { confirm: 'on' });
    expect(rotate.res.status).toBe(403);
    const [row] = await h.query<{ webhook_token: string }>('SELECT webhook_token FROM channels WHERE id = ?', [g]);
    expect(row!.webhook_token).toBe(seed.general.webhookToken);
  });
});
