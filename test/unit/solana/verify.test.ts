/**
 * `npm run verify` on Solana attestations (scripts/verify.ts, signing/verify-attestation.ts), run as a process as a
 * recipient runs it: an attestation whose transaction was built with signing/solana-transaction.ts and signed by the
 * issuer's key is valid against the published Solana signer; the same answer with a field changed, with its
 * transaction changed, or checked against another signer or stablecoin is INVALID, each saying why.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ed25519 } from '@noble/curves/ed25519';
import type { Address } from '@solana/kit';
import { SOLANA_STABLECOIN_DECIMALS, SOLANA_TOKEN_DECIMALS, solanaTreasury } from '../../../chains/solana-context';
import { base64ToBytes, bytesToBase64, signSolanaAttestationTransaction, type SignerPublicInfo } from '../../../signing';
import { startProcess, type TestProcess } from '../../../harness/processes';
import { testKey } from '../../support/solana-svm';

const issuer = testKey(1);
const user = testKey(2);
const stablecoinMint = testKey(10).address;
const stockMint = testKey(11).address;
let directory: string;
const started: TestProcess[] = [];

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'verify-'));
});
afterAll(async () => {
  await Promise.all(started.map((process) => process.stop()));
  rmSync(directory, { recursive: true, force: true });
});

function signersFile(publicKey: string): string {
  const signers: SignerPublicInfo = { evm: { address: '0x0000000000000000000000000000000000000001', domains: {} }, solana: { publicKey, message: '' } };
  const file = path.join(directory, `signers-${publicKey}.json`);
  writeFileSync(file, JSON.stringify(signers));
  return file;
}

/** A buy of 2 tokens at 100 as POST /v1/attestations answers it on solana-900, its transaction signed by the issuer. */
async function attestation() {
  const signed = await signSolanaAttestationTransaction(
    {
      issuer: issuer.address,
      stablecoinMint,
      stablecoinDecimals: SOLANA_STABLECOIN_DECIMALS,
      treasury: await solanaTreasury(issuer.address, stablecoinMint),
      attestationId: 4242n,
      side: 0,
      user: user.address,
      stockMint,
      stockDecimals: SOLANA_TOKEN_DECIMALS,
      price: 100n * 10n ** 18n,
      quantity: 2n * 10n ** 18n,
      nonceAccount: testKey(12).address,
      nonce: testKey(13).address,
    },
    (message) => ed25519.sign(message, issuer.seed),
  );
  return {
    attestationId: '4242',
    userId: `0x${'ab'.repeat(32)}`,
    chainId: 900,
    assetAddress: stockMint,
    side: '0',
    tokenAmount: (2n * 10n ** 18n).toString(),
    price: (100n * 10n ** 18n).toString(),
    expiration: 1_790_000_030,
    signature: signed.signature,
    additionalData: signed.additionalData,
  };
}

/** Runs `npm run verify` on `answer`; its exit code and what it printed. */
async function verify(answer: object, options: { signer?: string; stablecoinMint?: Address } = {}): Promise<{ code: number | NodeJS.Signals; output: string }> {
  const file = path.join(directory, `attestation-${started.length}.json`);
  writeFileSync(file, JSON.stringify(answer));
  const process = startProcess('verify', 'scripts/verify.ts', [file, '--signers', signersFile(options.signer ?? issuer.address), '--stablecoin-mint', options.stablecoinMint ?? stablecoinMint], {
    PATH: globalThis.process.env.PATH,
    DATA_DIR: directory,
  });
  started.push(process);
  const code = await process.exited;
  return { code, output: process.output().trim() };
}

test('the issuer-signed transaction of the attestation is valid, naming the wallet and the nonce it lives on', async () => {
  const answer = await attestation();
  expect(await verify(answer)).toEqual({
    code: 0,
    output: `valid: attestation 4242 on solana-900 is signed by the published ed25519 public key ${issuer.address}; its transaction is the attestation's, for the wallet ${user.address}, on the durable nonce ${testKey(13).address} of ${testKey(12).address}`,
  });
});

test('a tampered attestation is INVALID, and the output says what does not hold', async () => {
  const answer = await attestation();
  const bytes = base64ToBytes(answer.additionalData);
  const tamperedTransaction = Uint8Array.from(bytes);
  // The last byte of the message is the memo's last character: the transaction is no longer the one signed.
  tamperedTransaction[tamperedTransaction.length - 1] = tamperedTransaction.at(-1)! ^ 1;
  const cases: [string, object, Parameters<typeof verify>[1], RegExp][] = [
    ['another price', { ...answer, price: (101n * 10n ** 18n).toString() }, {}, /instruction 2 \(TransferChecked\) is not the attestation's/],
    ['another quantity', { ...answer, tokenAmount: (3n * 10n ** 18n).toString() }, {}, /instruction 2 \(TransferChecked\) is not the attestation's/],
    ['a sell instead of a buy', { ...answer, side: '1' }, {}, /instruction 1 \(CreateAssociatedTokenIdempotent\) is not the attestation's/],
    ['the transaction changed', { ...answer, additionalData: bytesToBase64(tamperedTransaction) }, {}, /the issuer's ed25519 signature does not verify over the transaction message/],
    ['another signer published', answer, { signer: user.address }, /does not carry this signature for the issuer/],
    ['another stablecoin', answer, { stablecoinMint: testKey(20).address }, /is not the attestation's/],
  ];
  for (const [what, tampered, options, problem] of cases) {
    const { code, output } = await verify(tampered, options);
    expect({ what, code }).toEqual({ what, code: 1 });
    expect(output).toMatch(new RegExp(`^INVALID: attestation 4242 on solana-900: .*\\(published: ed25519 public key ${options?.signer ?? issuer.address}\\)$`));
    expect({ what, output }).toEqual({ what, output: expect.stringMatching(problem) });
  }
});
