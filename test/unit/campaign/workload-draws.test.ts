/**
 * The workload's draws (campaign/workload.ts): a seed gives each actor the same operations in the same order, with the
 * same parameters and pauses, however often it is drawn; another seed, or another actor of the same seed, another
 * sequence; and over enough draws every kind of operation of each role comes up.
 */
import { seededRandom } from '../../../campaign/random';
import { drawOperations, type Role } from '../../../campaign/operations';

const draws = (seed: number, actor: string, role: Role, count = 200) => drawOperations(seededRandom(seed, 'workload').fork(actor), role, count);

test('the same seed draws the same operations, parameters and pauses; another seed or actor draws others', () => {
  expect(draws(36, 'user-0', 'user')).toEqual(draws(36, 'user-0', 'user'));
  expect(draws(36, 'operator', 'operator')).toEqual(draws(36, 'operator', 'operator'));
  const kinds = (list: ReturnType<typeof draws>) => list.map((draw) => draw.operation.kind).join(',');
  expect(kinds(draws(37, 'partner', 'partner'))).not.toEqual(kinds(draws(36, 'partner', 'partner')));
  expect(draws(36, 'user-1', 'user')).not.toEqual(draws(36, 'user-0', 'user'));
});

test('every kind of operation, chain, side and fate comes up', () => {
  const user = draws(1, 'user-0', 'user').map((draw) => draw.operation);
  const attests = user.flatMap((operation) => (operation.kind === 'attest' ? [operation] : []));
  expect(new Set(user.map((operation) => operation.kind))).toEqual(new Set(['attest', 'soft-quote', 'read-attestations']));
  expect(new Set(attests.map((operation) => operation.chain))).toEqual(new Set(['ethereum-1', 'bsc-56', 'solana-900']));
  expect(new Set(attests.map((operation) => operation.side))).toEqual(new Set(['buy', 'sell']));
  expect(new Set(attests.map((operation) => operation.fate))).toEqual(new Set(['submit', 'twice', 'late', 'never']));
  expect(new Set(draws(1, 'partner', 'partner').map((draw) => draw.operation.kind))).toEqual(new Set(['partner-mint', 'partner-read', 'partner-burn']));
  expect(new Set(draws(1, 'operator', 'operator').map((draw) => draw.operation.kind))).toEqual(
    new Set(['pause-market', 'pause-asset', 'pause-chain', 'corporate-action', 'review']),
  );
});
