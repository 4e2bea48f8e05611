import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

describe('OpenAPI: the five drop-in paths', () => {
  it('documents each with its success answer and the shared refusals', async () => {
    h = createHarness();
    const doc = (await (await h.call('GET', '/openapi.json')).json()) as { paths: Record<string, { post?: { summary: string; responses: Record<string, unknown> } }> };
    for (const format of ['slack', 'discord', 'alertmanager', 'grafana', 'github']) {
      const op = doc.paths[`/api/webhook/{token}/${format}`]?.post;
      expect(op, format).toBeDefined();
      expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(['400', '404', '413', '415', '429']));
    }
    const am = doc.paths['/api/webhook/{token}/alertmanager']!.post!;
    expect(am.summary).toMatch(/groupKey/);
    expect(JSON.stringify(am.responses['200'])).toContain('repeat');
    expect(JSON.stringify(doc.paths['/api/webhook/{token}/grafana']!.post)).toContain('imageURL');
    expect(JSON.stringify(doc.paths['/api/webhook/{token}/github']!.post)).toContain('workflow_job');
  });
});
