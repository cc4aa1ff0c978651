/**
 * `npm run client:generate [-- DIR]`: regenerates the client package's generated files (scripts/client-files.ts) from
 * the product: its OpenAPI document, the contracts' ABI, the chain table; into client/, or DIR (what
 * test/client/generated.test.ts compares the checked-in files with). Run it after changing a route, a schema, an error
 * code or a contract.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exitWithUsageOnHelp } from '../config/cli';
import { CLIENT_DIR, clientFiles } from './client-files';

exitWithUsageOnHelp('usage: npm run client:generate [-- DIR]   regenerates client/openapi.json and client/src/generated/* (into DIR instead)');
const root = process.argv[2] ? path.resolve(process.argv[2]) : CLIENT_DIR;
void clientFiles().then((files) => {
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(root, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
    console.log(`wrote ${path.relative(process.cwd(), target)}`);
  }
});
