/**
 * The kit's offline `verifyAttestation` agrees with the product's (signing/verify-attestation.ts, what
 * `npm run verify` runs): on valid EVM attestations of both chains and valid Solana buys and sells, and on each of
 * them with a field changed after signing, another signature, another signer, or (Solana) another treasury or
 * transaction, both say the same: valid or not, and for Solana the user and nonce the transaction names. No network.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { hexToBytes } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { verifyAttestation as verifyWithKit } from 'tokenized-stock-issuer-client';
import { SOLANA_STABLECOIN_DECIMALS, SOLANA_TOKEN_DECIMALS, solanaTreasury } from '../../chains/solana-context';
import { bytesToBase64, evmDomain, hexToBase64, signEvmQuoteWithKey, signSolanaAttestationTransaction, verifyAttestation as verifyWithProduct, type SignerPublicInfo } from '../../signing';
import { EVM_PRIVATE_KEY, USER_ID, ADDITIONAL_DATA, evmQuote } from '../unit/signing/fixtures';
import { testKey } from '../support/solana-svm';

const TOKEN_MANAGERS = { 'ethereum-1': '0x1111111111111111111111111111111111111111', 'bsc-56': '0x2222222222222222222222222222222222222222' } as const;
const issuer = testKey(1);
const user = testKey(2);
const stablecoinMint = testKey(10).address;
const stockMint = testKey(11).address;

type Answer = Parameters<typeof verifyWithKit>[0];
let signers: SignerPublicInfo;

beforeAll(async () => {
  signers = {
    evm: {
      address: privateKeyToAddress(EVM_PRIVATE_KEY),
      domains: Object.fromEntries(Object.entries(TOKEN_MANAGERS).map(([chain, address]) => {
        const domain = evmDomain(chain as keyof typeof TOKEN_MANAGERS, address);
        return [chain, { ...domain, chainId: Number(domain.chainId) }];
      })),
    },
    solana: { publicKey: issuer.address, message: '', stablecoinMint, stablecoinDecimals: SOLANA_STABLECOIN_DECIMALS, treasury: await solanaTreasury(issuer.address, stablecoinMint), tokenDecimals: SOLANA_TOKEN_DECIMALS },
  };
});

/** An EVM attestation as POST /v1/attestations answers it, signed with the fixture key. */
function evmAttestation(chain: keyof typeof TOKEN_MANAGERS, side: 0 | 1): Answer {
  const quote = evmQuote({ chainId: chain === 'ethereum-1' ? 1n : 56n, side });
  const signature = signEvmQuoteWithKey(hexToBytes(EVM_PRIVATE_KEY), quote, evmDomain(chain, TOKEN_MANAGERS[chain]));
  return {
    attestationId: quote.attestationId.toString(), userId: USER_ID, chainId: quote.chainId.toString(), assetAddress: quote.asset, side: side === 0 ? '0' : '1',
    tokenAmount: quote.quantity.toString(), price: quote.price.toString(), expiration: Number(quote.expiration), signature: bytesToBase64(signature), additionalData: hexToBase64(ADDITIONAL_DATA),
  };
}

/** A Solana attestation (2.5 tokens at 100.123) with its transaction signed by the issuer. */
async function solanaAttestation(side: 0 | 1): Promise<Answer> {
  const price = 100_123_000_000_000_000_000n;
  const quantity = 2_500_000_000_000_000_000n;
  const signed = await signSolanaAttestationTransaction(
    {
      issuer: issuer.address, stablecoinMint, stablecoinDecimals: SOLANA_STABLECOIN_DECIMALS, treasury: signers.solana.treasury as never,
      attestationId: 4242n, side, user: user.address, stockMint, stockDecimals: SOLANA_TOKEN_DECIMALS, price, quantity,
      nonceAccount: testKey(12).address, nonce: testKey(13).address,
    },
    (message) => ed25519.sign(message, issuer.seed),
  );
  return {
    attestationId: '4242', userId: `0x${'ab'.repeat(32)}`, chainId: '900', assetAddress: stockMint, side: side === 0 ? '0' : '1', tokenAmount: quantity.toString(),
    price: price.toString(), expiration: 1_790_000_030, signature: signed.signature, additionalData: signed.additionalData,
  };
}

/** The base64 text with one byte changed. */
function flipped(base64: string, at: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[at % bytes.length]! ^= 0x01;
  return bytes.toString('base64');
}

/** Each way an attestation can be wrong, as a change to the answer or to the signers it is checked against. */
const TAMPERINGS: [string, (answer: Answer) => Answer, (published: SignerPublicInfo) => SignerPublicInfo][] = [
  ['price', (a) => ({ ...a, price: (BigInt(a.price) + BigInt(a.price) / 100n).toString() }), (s) => s],
  ['price by one unit', (a) => ({ ...a, price: (BigInt(a.price) + 1n).toString() }), (s) => s],
  ['tokenAmount', (a) => ({ ...a, tokenAmount: (BigInt(a.tokenAmount) - 1n).toString() }), (s) => s],
  ['attestationId', (a) => ({ ...a, attestationId: (BigInt(a.attestationId) + 1n).toString() }), (s) => s],
  ['side', (a) => ({ ...a, side: a.side === '0' ? '1' : '0' }), (s) => s],
  ['expiration', (a) => ({ ...a, expiration: a.expiration + 1 }), (s) => s],
  ['userId', (a) => ({ ...a, userId: `0x${'cd'.repeat(32)}` }), (s) => s],
  ['signature', (a) => ({ ...a, signature: flipped(a.signature, 5) }), (s) => s],
  ['additionalData', (a) => ({ ...a, additionalData: flipped(a.additionalData, 70) }), (s) => s],
  ['another signer', (a) => a, (s) => ({ evm: { ...s.evm, address: '0x0000000000000000000000000000000000000001' }, solana: { ...s.solana, publicKey: testKey(20).address } })],
  ['another treasury', (a) => a, (s) => ({ ...s, solana: { ...s.solana, treasury: testKey(21).address } })],
];

async function both(answer: Answer, published: SignerPublicInfo) {
  const product = await verifyWithProduct(answer, published);
  const kit = await verifyWithKit(answer, published);
  return { product, kit };
}

const CASES: [string, () => Promise<Answer>][] = [
  ['ethereum-1 buy', async () => evmAttestation('ethereum-1', 0)],
  ['bsc-56 sell', async () => evmAttestation('bsc-56', 1)],
  ['solana-900 buy', () => solanaAttestation(0)],
  ['solana-900 sell', () => solanaAttestation(1)],
];

test.each(CASES)('a valid %s attestation is valid for both, with the same scheme, signer and Solana accounts', async (_name, make) => {
  const { product, kit } = await both(await make(), signers);
  expect(product.valid).toBe(true);
  const pick = ({ chain, scheme, valid, expected, recovered, user: wallet, nonceAccount, nonce }: typeof kit) => ({ chain, scheme, valid, expected, recovered, user: wallet, nonceAccount, nonce });
  expect(pick(kit)).toEqual(pick(product));
});

describe.each(CASES)('a %s attestation tampered', (_name, make) => {
  test.each(TAMPERINGS)('(%s) is judged alike by both', async (_what, change, publish) => {
    const answer = await make();
    const published = publish(signers);
    const { product, kit } = await both(change(answer), published);
    expect({ valid: kit.valid, user: kit.user, nonce: kit.nonce }).toEqual({ valid: product.valid, user: product.user, nonce: product.nonce });
    if (!kit.valid) expect(kit.problem).toEqual(expect.any(String));
  });
});

// A Solana attestation's transaction carries neither the expiration (its lifetime is the durable nonce) nor the
// user id (the fee payer is the wallet), and a price one 10^-18 higher can round to the same stablecoin amount; an
// EVM quote names no treasury. Those do not count there.
const NOT_SIGNED = { evm: ['another treasury'], solana: ['expiration', 'userId', 'price by one unit'] };

test('every other tampering makes an attestation invalid for the kit', async () => {
  for (const [name, make] of CASES) {
    for (const [what, change, publish] of TAMPERINGS) {
      if (NOT_SIGNED[name.startsWith('solana') ? 'solana' : 'evm'].includes(what)) continue;
      expect([name, what, (await verifyWithKit(change(await make()), publish(signers))).valid]).toEqual([name, what, false]);
    }
  }
});
