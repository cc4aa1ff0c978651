/** The committed contract artifacts are exactly what the sources compile to today. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPOSITORY_ROOT, compileContracts, renderArtifacts } from '../../contracts/compile';

describe('contract artifacts', () => {
  it('match a fresh build of contracts/src (run `npx tsx scripts/build-contracts.ts` after changing a contract)', () => {
    const fresh = renderArtifacts(compileContracts());
    expect(fresh.size).toBe(7);
    for (const [relativePath, content] of fresh) {
      expect({ file: relativePath, content: readFileSync(path.join(REPOSITORY_ROOT, relativePath), 'utf8') }).toEqual({
        file: relativePath,
        content,
      });
    }
  }, 120_000);
});
