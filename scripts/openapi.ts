/**
 * `npm run openapi [-- FILE]`: writes the OpenAPI 3.1 document (the one `GET /v1/openapi.json` serves) to FILE,
 * default `openapi.json`, for client generators. Its server URL is PUBLIC_BASE_URL, else http://HOST:PORT.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../api/resources';
import { loadConfig, publicBaseUrl } from '../config';
import { exitWithUsageOnHelp } from '../config/cli';

exitWithUsageOnHelp('usage: npm run openapi -- [FILE]   writes the OpenAPI document to FILE (default openapi.json), server URL PUBLIC_BASE_URL');
const file = path.resolve(process.argv[2] ?? 'openapi.json');
const document = openApiDocument(publicBaseUrl(loadConfig(['PUBLIC_BASE_URL', 'HOST', 'PORT'])));
writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${file}: OpenAPI ${String(document.openapi)}, ${Object.keys(document.paths).length} paths`);
