/** `npm run client:types`: regenerates src/generated/openapi.ts from the service's /openapi.json. */
import fs from 'node:fs';
import path from 'node:path';
import { GENERATED_TYPES, renderTypes, servedDocument } from './openapi-types.js';

const text = await renderTypes(await servedDocument());
fs.mkdirSync(path.dirname(GENERATED_TYPES), { recursive: true });
fs.writeFileSync(GENERATED_TYPES, text);
console.log(`wrote ${path.relative(process.cwd(), GENERATED_TYPES)} (${text.split('\n').length} lines)`);
