/**
 * GET /v1/attestations/signers against the real app and PostgreSQL: what it publishes, and every chain's attestation
 * verified against it alone, as `npm run verify` and a third party do.
 */
import { getAddress } from 'viem';
import { FIXTURE_TOKEN_MANAGERS } from '../../harness/fixture-deployments';
import { newYorkTime } from '../../domain/calendar';
import { EIP712_DOMAIN_NAME, verifyAttestation } from '../../signing';
import { createTestApi, testSigners, testSolanaAccounts, type TestApi } from '../support/api';

const MONDAY_10AM = newYorkTime('2026-11-23', '10:00');
const SOLANA_WALLET = 'GvpCiTGbQbyGSF9ZxWx1jYsVRV7YkgDnjVgBR8oVRhW9';

let api: TestApi;
beforeEach(async () => {
  api = await createTestApi();
  await api.tradeAt(MONDAY_10AM);
});
afterEach(() => api.close());

const attest = (body: object) => api.http.post('/v1/attestations').set('x-api-key', api.keys.write).send(body);
const valid = { symbol: 'AAPLon', side: 'buy', tokenAmount: '1.5' };

describe('the published signers', () => {
  test('GET /v1/attestations/signers names the signers and the domain of each deployed chain, and attestations verify against them', async () => {
    const response = await api.http.get('/v1/attestations/signers').set('x-api-key', api.keys.read);
    expect(response.status).toBe(200);
    const signers = testSigners();
    const accounts = await testSolanaAccounts();
    expect(response.body).toEqual({
      evm: {
        address: signers.evm.address,
        domains: {
          'ethereum-1': { name: EIP712_DOMAIN_NAME, version: '1', chainId: 1, verifyingContract: getAddress(FIXTURE_TOKEN_MANAGERS['ethereum-1']) },
          'bsc-56': { name: EIP712_DOMAIN_NAME, version: '1', chainId: 56, verifyingContract: getAddress(FIXTURE_TOKEN_MANAGERS['bsc-56']) },
        },
        // This app reaches no chain: no stablecoin's decimals can be read.
        settlementTokens: {},
      },
      solana: {
        publicKey: signers.solana.publicKey,
        message: expect.stringContaining('additionalData'),
        stablecoinMint: accounts.stablecoinMint,
        stablecoinDecimals: 6,
        treasury: accounts.treasury,
        tokenDecimals: 9,
      },
    });
    for (const request of [{ ...valid, chainId: 'ethereum-1' }, { ...valid, chainId: 'bsc-56' }]) {
      const attestation = (await attest(request)).body;
      const verification = await verifyAttestation(attestation, response.body);
      expect(verification).toMatchObject({ valid: true, scheme: 'eip712' });
      // Any field changed after signing, or another signer, fails.
      expect((await verifyAttestation({ ...attestation, price: `${attestation.price}1` }, response.body)).valid).toBe(false);
      const foreign = { evm: { ...response.body.evm, address: '0x0000000000000000000000000000000000000001' }, solana: { ...response.body.solana, publicKey: SOLANA_WALLET } };
      expect((await verifyAttestation(attestation, foreign)).valid).toBe(false);
    }
    // A Solana attestation verifies against what is published alone: the key and the accounts its transaction names.
    const solana = (await attest({ ...valid, chainId: 'solana-900', userAddress: SOLANA_WALLET })).body;
    expect(await verifyAttestation(solana, response.body)).toMatchObject({ valid: true, scheme: 'ed25519', user: SOLANA_WALLET });
    const otherTreasury = { ...response.body, solana: { ...response.body.solana, treasury: SOLANA_WALLET } };
    expect((await verifyAttestation(solana, otherTreasury)).valid).toBe(false);
  });
});
