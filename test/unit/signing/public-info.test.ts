import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { recoverTypedDataAddress, type Address } from 'viem';
import {
  QUOTE_TYPES,
  SOLANA_ATTESTATION_MESSAGE,
  evmDomain,
  signerPublicInfo,
  signersFromKeys,
} from '../../../signing';
import { EVM_PRIVATE_KEY, SOLANA_KEYPAIR, TOKEN_MANAGER_BSC, TOKEN_MANAGER_ETH, evmQuote } from './fixtures';

const signers = signersFromKeys({ evmPrivateKey: EVM_PRIVATE_KEY, solanaSecretKey: SOLANA_KEYPAIR.secretKey });
const contracts = { 'ethereum-1': TOKEN_MANAGER_ETH, 'bsc-56': TOKEN_MANAGER_BSC.toLowerCase() };

describe('signerPublicInfo', () => {
  test('is the stack.json "signers" object, JSON-safe and with nothing secret', () => {
    const info = signerPublicInfo(signers, contracts);
    expect(JSON.parse(JSON.stringify(info))).toEqual({
      evm: {
        address: signers.evm.address,
        domains: {
          'ethereum-1': { name: 'TokenizedStockIssuerTokenManager', version: '1', chainId: 1, verifyingContract: TOKEN_MANAGER_ETH },
          'bsc-56': { name: 'TokenizedStockIssuerTokenManager', version: '1', chainId: 56, verifyingContract: TOKEN_MANAGER_BSC },
        },
        settlementTokens: {},
      },
      solana: { publicKey: SOLANA_KEYPAIR.publicKey.toBase58(), message: SOLANA_ATTESTATION_MESSAGE },
    });
    // With the settlement token of a chain, as the API reads it.
    const settlementTokens = { 'ethereum-1': { address: TOKEN_MANAGER_ETH as `0x${string}`, decimals: 6 } };
    expect(signerPublicInfo(signers, contracts, undefined, settlementTokens).evm.settlementTokens).toEqual(settlementTokens);
    // With the issuer's Solana accounts (the API's), what a Solana attestation's transaction is checked against.
    const accounts = { stablecoinMint: 'So11111111111111111111111111111111111111112', stablecoinDecimals: 6, treasury: SOLANA_KEYPAIR.publicKey.toBase58(), tokenDecimals: 9 } as const;
    expect(signerPublicInfo(signers, contracts, accounts as never).solana).toEqual({ publicKey: SOLANA_KEYPAIR.publicKey.toBase58(), message: SOLANA_ATTESTATION_MESSAGE, ...accounts });
    expect(JSON.stringify(info)).not.toContain(EVM_PRIVATE_KEY.slice(2));
  });

  test('is enough for a third party to verify an EVM signature on each chain', async () => {
    const info = JSON.parse(JSON.stringify(signerPublicInfo(signers, contracts))) as ReturnType<typeof signerPublicInfo>;
    for (const [chain, chainId] of [['ethereum-1', 1n], ['bsc-56', 56n]] as const) {
      const quote = evmQuote({ chainId });
      const signature = await signers.evm.sign(quote, evmDomain(chain, contracts[chain]));
      const recovered = await recoverTypedDataAddress({
        domain: info.evm.domains[chain],
        types: QUOTE_TYPES,
        primaryType: 'Quote',
        message: { ...quote, asset: quote.asset as Address },
        signature: `0x${Buffer.from(signature).toString('hex')}`,
      });
      expect(recovered).toBe(info.evm.address);
    }
  });

  test('is enough for a third party to verify a Solana signature', () => {
    const info = signerPublicInfo(signers, contracts);
    const message = new TextEncoder().encode('a transaction message');
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(new PublicKey(info.solana.publicKey).toBytes()).toString('base64url') },
      format: 'jwk',
    });
    expect(nodeVerify(null, message, key, signers.solana.signMessage(message))).toBe(true);
  });

  test('refuses a token manager that is not an address', () => {
    expect(() => signerPublicInfo(signers, { ...contracts, 'bsc-56': 'nope' })).toThrow('verifyingContract for bsc-56');
  });
});
