import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_TYPES, renderTypes, servedDocument } from '../../packages/client/scripts/openapi-types.js';

/**
 * The client's types are generated from the service's /openapi.json (`npm run client:types`) and
 * checked in; this fails when the service's document changed and the types were not regenerated,
 * so the client cannot drift from the server.
 */
describe('the client types', () => {
  it('match what the service serves at /openapi.json now', async () => {
    const now = await renderTypes(await servedDocument());
    const checkedIn = fs.readFileSync(GENERATED_TYPES, 'utf8');
    expect(checkedIn === now, 'packages/client/src/generated/openapi.ts is stale: run `npm run client:types` and commit it').toBe(true);
  });

  it('would notice a change in the document', async () => {
    const doc = (await servedDocument()) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    doc.components.schemas.Channel!.properties!.extra = { type: 'string' };
    expect(await renderTypes(doc)).not.toBe(fs.readFileSync(GENERATED_TYPES, 'utf8'));
  });
});
