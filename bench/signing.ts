/**
 * Attestation signing figures: one EVM quote's EIP-712 digest and signature as the product signs it (the digest
 * encoded by hand under a cached domain separator, libsecp256k1), beside viem's account (`signTypedData`) that
 * gives the same bytes.
 */
import { hexToBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { evmDomain, hashEvmQuote, secp256k1Implementation, signEvmQuote, signEvmQuoteWithKey, type Quote } from '../signing';

export interface SigningFigures {
  implementation: typeof secp256k1Implementation;
  digestUs: number;
  signUs: number;
  viemAccountUs: number;
}

async function perCallUs(count: number, run: () => unknown): Promise<number> {
  for (let index = 0; index < Math.min(count, 200); index += 1) await run();
  const started = performance.now();
  for (let index = 0; index < count; index += 1) await run();
  return ((performance.now() - started) * 1000) / count;
}

export async function benchSigning(): Promise<SigningFigures> {
  const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
  const account = privateKeyToAccount(key);
  const keyBytes = hexToBytes(key);
  const domain = evmDomain('ethereum-1', '0x5FbDB2315678afecb367f032d93F642f64180aa3');
  const quote = (index: number): Quote => ({
    chainId: domain.chainId,
    attestationId: 0x0123456789abcdefn + BigInt(index),
    userId: `0x${'11'.repeat(32)}`,
    asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    price: 187_250_000_000_000_000_000n,
    quantity: 500_000_000_000_000_000n,
    expiration: 1_790_000_000n,
    side: 0,
    additionalData: `0x${'00'.repeat(32)}`,
  });
  let index = 0;
  return {
    implementation: secp256k1Implementation,
    digestUs: await perCallUs(5_000, () => hashEvmQuote(quote((index += 1)), domain)),
    signUs: await perCallUs(5_000, () => signEvmQuoteWithKey(keyBytes, quote((index += 1)), domain)),
    viemAccountUs: await perCallUs(1_000, () => signEvmQuote(account, quote((index += 1)), domain)),
  };
}
