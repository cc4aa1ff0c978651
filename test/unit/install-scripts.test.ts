/** Every dependency with an install script is decided in package.json#allowScripts, so `npm install` has nothing to warn about. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Record<string, unknown>;

test('each package of the lockfile that has an install script is allowed or denied by name', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const policy = (read('package.json') as { allowScripts: Record<string, boolean> }).allowScripts;
  const withScripts = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([location]) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts.length).toBeGreaterThan(0);
  expect(withScripts.filter((name) => typeof policy[name] !== 'boolean')).toEqual([]);
});
