/**
 * The client's API types, rendered from the service's own /openapi.json with openapi-typescript.
 * `npm run client:types` writes them to src/generated/openapi.ts; test/client/types-drift.test.ts
 * renders them again from the service as it is now and fails when the checked-in file differs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { loadConfig } from '../../../src/config.js';
import { createApp } from '../../../src/http/app.js';
import { openServices } from '../../../src/services.js';

export const GENERATED_TYPES = path.resolve(import.meta.dirname, '../src/generated/openapi.ts');

const HEADER = `/**
 * Generated from the service's /openapi.json by \`npm run client:types\` (openapi-typescript). Do not edit:
 * test/client/types-drift.test.ts fails when this file and the service disagree.
 */
`;

/** The document a fresh service serves (a throw-away SQLite data dir, a fixed PUBLIC_URL so the text is stable). */
export async function servedDocument(): Promise<unknown> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-openapi-'));
  const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'http://alertbridge.test', LOG_LEVEL: 'silent', AVATAR_FETCH: '0', AVATAR_BASE_URL: '' });
  const services = await openServices(config);
  try {
    const res = await createApp(services).request('/openapi.json');
    if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
    return await res.json();
  } finally {
    services.live.closeAll();
    await services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The TypeScript text openapi-typescript renders for a document. */
export async function renderTypes(doc: unknown): Promise<string> {
  const ast = await openapiTS(doc as Parameters<typeof openapiTS>[0], { alphabetize: true });
  return HEADER + astToString(ast);
}
