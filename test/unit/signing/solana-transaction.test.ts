import { ed25519 } from '@noble/curves/ed25519';
import {
  createNoopSigner,
  getCompiledTransactionMessageDecoder,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  lamports,
  type Address,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { getAdvanceNonceAccountInstruction } from '@solana-program/system';
import type { LiteSVM } from 'litesvm';
import { base64ToBytes, bytesToBase64, InvalidQuoteError } from '../../../signing';
import {
  compileSolanaAttestationTransaction,
  signSolanaAttestationTransaction,
  solanaAttestationAmounts,
  type SignedSolanaAttestation,
  type SolanaAttestationTransactionInput,
} from '../../../signing/solana-transaction';
import { signersFromKeys } from '../../../signing/keys';
import { verifySolanaAttestationTransaction, type SolanaAttestationFields } from '../../../signing/verify-solana-transaction';
import {
  associatedTokenAccount,
  createMint,
  createNonceAccount,
  createTokenAccount,
  mintSupply,
  mintTo,
  newLedger,
  nonceValue,
  send,
  sendInstructions,
  signedBy,
  testKey,
  tokenBalance,
} from '../../support/solana-svm';

const STABLECOIN_DECIMALS = 6;
const STOCK_DECIMALS = 9;
const E18 = 10n ** 18n;

const issuer = testKey(1);
const user = testKey(2);
const attacker = testKey(3);

interface Ledger {
  svm: LiteSVM;
  stablecoinMint: Address;
  stockMint: Address;
  treasury: Address;
  userStablecoin: Address;
  userStock: Address;
  nonceAccount: Address;
}

/** A ledger with the issuer's mints and treasury, a nonce account of the issuer, and a user holding 10,000 USD. */
async function ledger(): Promise<Ledger> {
  const svm = newLedger();
  for (const key of [issuer, user, attacker]) svm.airdrop(key.address, lamports(10_000_000_000n));
  const stablecoinMint = createMint(svm, issuer, testKey(10), issuer.address, STABLECOIN_DECIMALS);
  const stockMint = createMint(svm, issuer, testKey(11), issuer.address, STOCK_DECIMALS);
  const treasury = await createTokenAccount(svm, issuer, issuer.address, stablecoinMint);
  const userStablecoin = await createTokenAccount(svm, user, user.address, stablecoinMint);
  mintTo(svm, issuer, stablecoinMint, userStablecoin, 10_000_000_000n, STABLECOIN_DECIMALS);
  const nonceAccount = createNonceAccount(svm, issuer, testKey(12), issuer.address);
  return { svm, stablecoinMint, stockMint, treasury, userStablecoin, userStock: await associatedTokenAccount(user.address, stockMint), nonceAccount };
}

/** A buy of 12.5 tokens at 187.25 (or what `overrides` says), on the nonce the account holds now. */
function attestationInput(at: Ledger, overrides: Partial<SolanaAttestationTransactionInput> = {}): SolanaAttestationTransactionInput {
  return {
    issuer: issuer.address,
    stablecoinMint: at.stablecoinMint,
    stablecoinDecimals: STABLECOIN_DECIMALS,
    treasury: at.treasury,
    attestationId: 0x0123456789abcdef0123456789abcdefn,
    side: 0,
    user: user.address,
    stockMint: at.stockMint,
    stockDecimals: STOCK_DECIMALS,
    price: 187_250_000_000_000_000_000n,
    quantity: 12_500_000_000_000_000_000n,
    nonceAccount: at.nonceAccount,
    nonce: nonceValue(at.svm, at.nonceAccount),
    ...overrides,
  };
}

const issuerSigns = (message: Uint8Array): Uint8Array => ed25519.sign(message, issuer.seed);

/** The wire transaction the issuer answered, completed by `signer` (the user, unless told). */
function completed(signed: SignedSolanaAttestation, signer = user): Transaction {
  return signedBy(getTransactionDecoder().decode(base64ToBytes(signed.additionalData)), signer);
}

/** The attestation as the API answers it (the fields the verification reads). */
function answered(input: SolanaAttestationTransactionInput, signed: SignedSolanaAttestation): SolanaAttestationFields {
  return {
    attestationId: input.attestationId.toString(),
    assetAddress: input.stockMint,
    side: String(input.side),
    tokenAmount: input.quantity.toString(),
    price: input.price.toString(),
    signature: signed.signature,
    additionalData: signed.additionalData,
  };
}

/** The transaction with one account of its message replaced: what a user tampering with the recipient sends. */
function withAccountReplaced(transaction: Transaction, from: Address, to: Address): Transaction {
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  const index = message.staticAccounts.indexOf(from);
  if (index < 0) throw new Error(`${from} is not in the message`);
  const staticAccounts = message.staticAccounts.map((account, position) => (position === index ? to : account));
  return { ...transaction, messageBytes: getCompiledTransactionMessageEncoder().encode({ ...message, staticAccounts }) as Transaction['messageBytes'] };
}

describe('the amounts of a Solana attestation', () => {
  test('are the quote’s in each mint’s decimals, rounded in the issuer’s favour', () => {
    // 1.0000000005 tokens at 3.3333333333: 3.33333333346666666665 of stablecoin.
    const quote = { price: 3_333_333_333_300_000_000n, quantity: 1_000_000_000_500_000_000n, stockDecimals: 9, stablecoinDecimals: 6 };
    expect(solanaAttestationAmounts({ ...quote, side: 0 })).toEqual({ tokens: 1_000_000_000n, stablecoin: 3_333_334n });
    expect(solanaAttestationAmounts({ ...quote, side: 1 })).toEqual({ tokens: 1_000_000_001n, stablecoin: 3_333_333n });
  });

  test('exact amounts are not rounded', () => {
    expect(solanaAttestationAmounts({ side: 0, price: 187_250_000_000_000_000_000n, quantity: 12_500_000_000_000_000_000n, stockDecimals: 9, stablecoinDecimals: 6 })).toEqual({
      tokens: 12_500_000_000n,
      stablecoin: 2_340_625_000n,
    });
  });

  test('a trade that rounds to nothing is refused, never signed', () => {
    expect(() => solanaAttestationAmounts({ side: 0, price: 100n * E18, quantity: 10n ** 8n, stockDecimals: 9, stablecoinDecimals: 6 })).toThrow(InvalidQuoteError);
    expect(() => solanaAttestationAmounts({ side: 1, price: 1n, quantity: E18, stockDecimals: 9, stablecoinDecimals: 6 })).toThrow(InvalidQuoteError);
  });
});

describe('a Solana attestation on the ledger', () => {
  test('a buy completed by the user lands once and moves exactly the quote’s amounts', async () => {
    const at = await ledger();
    const input = attestationInput(at);
    const signed = await signSolanaAttestationTransaction(input, issuerSigns);
    const transaction = completed(signed);

    expect(send(at.svm, transaction)).toBeNull();
    expect(tokenBalance(at.svm, at.userStablecoin)).toBe(10_000_000_000n - 2_340_625_000n);
    expect(tokenBalance(at.svm, at.treasury)).toBe(2_340_625_000n);
    expect(tokenBalance(at.svm, at.userStock)).toBe(12_500_000_000n);
    expect(mintSupply(at.svm, at.stockMint)).toBe(12_500_000_000n);
    // The transaction consumed the nonce: the account holds a new value.
    expect(nonceValue(at.svm, at.nonceAccount)).not.toBe(input.nonce);

    at.svm.expireBlockhash();
    expect(send(at.svm, transaction)).not.toBeNull();
    expect(tokenBalance(at.svm, at.userStock)).toBe(12_500_000_000n);
    expect(tokenBalance(at.svm, at.treasury)).toBe(2_340_625_000n);
  });

  test('a sell completed by the user burns the tokens and the treasury pays the price', async () => {
    const at = await ledger();
    expect(send(at.svm, completed(await signSolanaAttestationTransaction(attestationInput(at), issuerSigns)))).toBeNull();
    at.svm.expireBlockhash();

    // 5 tokens at 180: 900 USD out of the treasury's 2,340.625.
    const sell = attestationInput(at, { attestationId: 7n, side: 1, price: 180n * E18, quantity: 5n * E18 });
    const signed = await signSolanaAttestationTransaction(sell, issuerSigns);
    expect(signed.amounts).toEqual({ tokens: 5_000_000_000n, stablecoin: 900_000_000n });
    const transaction = completed(signed);

    expect(send(at.svm, transaction)).toBeNull();
    expect(tokenBalance(at.svm, at.userStock)).toBe(7_500_000_000n);
    expect(mintSupply(at.svm, at.stockMint)).toBe(7_500_000_000n);
    expect(tokenBalance(at.svm, at.treasury)).toBe(2_340_625_000n - 900_000_000n);
    expect(tokenBalance(at.svm, at.userStablecoin)).toBe(10_000_000_000n - 2_340_625_000n + 900_000_000n);

    at.svm.expireBlockhash();
    expect(send(at.svm, transaction)).not.toBeNull();
    expect(tokenBalance(at.svm, at.userStock)).toBe(7_500_000_000n);
  });

  test('the product’s Solana signer (the published key) co-signs a transaction that lands', async () => {
    const at = await ledger();
    const signers = signersFromKeys({ evmPrivateKey: `0x${'11'.repeat(32)}`, solanaSecretKey: issuer.secretKey });
    expect(signers.solana.publicKey).toBe(issuer.address);
    const signed = await signSolanaAttestationTransaction(attestationInput(at), (message) => signers.solana.signMessage(message));
    expect(send(at.svm, completed(signed))).toBeNull();
    expect(tokenBalance(at.svm, at.userStock)).toBe(12_500_000_000n);
  });

  test('a buy creates the user’s stock account and pays for nothing the user did not sign for', async () => {
    const at = await ledger();
    expect(at.svm.getAccount(at.userStock).exists).toBe(false);
    const issuerLamports = at.svm.getBalance(issuer.address);
    expect(send(at.svm, completed(await signSolanaAttestationTransaction(attestationInput(at), issuerSigns)))).toBeNull();
    expect(at.svm.getAccount(at.userStock).exists).toBe(true);
    // The user is the fee payer and pays the new account's rent: the issuer's lamports do not move.
    expect(at.svm.getBalance(issuer.address)).toBe(issuerLamports);
  });

  test('after the issuer advances the nonce, the attestation can never land', async () => {
    const at = await ledger();
    const signed = await signSolanaAttestationTransaction(attestationInput(at), issuerSigns);
    sendInstructions(at.svm, issuer, [getAdvanceNonceAccountInstruction({ nonceAccount: at.nonceAccount, nonceAuthority: createNoopSigner(issuer.address) })]);

    expect(send(at.svm, completed(signed))).not.toBeNull();
    expect(tokenBalance(at.svm, at.userStock)).toBe(0n);
    expect(tokenBalance(at.svm, at.userStablecoin)).toBe(10_000_000_000n);
  });

  test('a transaction with another amount, re-signed by the user, is refused: the issuer’s signature is not over it', async () => {
    const at = await ledger();
    const input = attestationInput(at);
    const signed = await signSolanaAttestationTransaction(input, issuerSigns);
    const cheaper = await compileSolanaAttestationTransaction({ ...input, price: input.price / 100n });
    const issuerSignature = getTransactionDecoder().decode(base64ToBytes(signed.additionalData)).signatures[issuer.address]!;
    const tampered = signedBy({ ...cheaper, signatures: { ...cheaper.signatures, [issuer.address]: issuerSignature } }, user);

    expect(send(at.svm, tampered)).toMatch(/signature/i);
    expect(tokenBalance(at.svm, at.userStock)).toBe(0n);
    // The genuine one still lands.
    expect(send(at.svm, completed(signed))).toBeNull();
  });

  test('a transaction with another recipient, re-signed by the user, is refused', async () => {
    const at = await ledger();
    const attackerStock = await createTokenAccount(at.svm, attacker, attacker.address, at.stockMint);
    const signed = await signSolanaAttestationTransaction(attestationInput(at), issuerSigns);
    const tampered = signedBy(withAccountReplaced(completed(signed), at.userStock, attackerStock), user);

    expect(send(at.svm, tampered)).toMatch(/signature/i);
    expect(tokenBalance(at.svm, attackerStock)).toBe(0n);
  });

  test('a transaction signed by another wallet than the one it names is refused', async () => {
    const at = await ledger();
    const signed = await signSolanaAttestationTransaction(attestationInput(at), issuerSigns);
    const transaction = getTransactionDecoder().decode(base64ToBytes(signed.additionalData));
    // The attacker's signature in the user's place: the ledger checks each signature against its own key.
    const attackerSignature = ed25519.sign(Uint8Array.from(transaction.messageBytes), attacker.seed) as SignatureBytes;
    expect(send(at.svm, { ...transaction, signatures: { ...transaction.signatures, [user.address]: attackerSignature } })).toMatch(/signature/i);
    expect(tokenBalance(at.svm, at.userStock)).toBe(0n);
  });
});

describe('verifying a Solana attestation offline', () => {
  async function attestation(side: 0 | 1 = 0) {
    const at = await ledger();
    const input = attestationInput(at, side === 1 ? { side, price: 180n * E18, quantity: 5n * E18 } : {});
    const signed = await signSolanaAttestationTransaction(input, issuerSigns);
    const context = { issuer: issuer.address, stablecoinMint: at.stablecoinMint, stablecoinDecimals: STABLECOIN_DECIMALS, treasury: at.treasury, stockDecimals: STOCK_DECIMALS };
    return { at, input, signed, fields: answered(input, signed), context };
  }

  test.each([0, 1] as const)('accepts the issuer’s attestation as answered (side %s), and names its user and nonce', async (side) => {
    const { at, input, fields, context } = await attestation(side);
    expect(await verifySolanaAttestationTransaction(fields, { ...context, userAddress: user.address })).toEqual({
      valid: true,
      user: user.address,
      nonceAccount: at.nonceAccount,
      nonce: input.nonce,
    });
  });

  test.each([
    ['another token amount', { tokenAmount: (13n * E18).toString() }, /instruction 2 \(TransferChecked\)/],
    ['another price', { price: (180n * E18).toString() }, /instruction 2 \(TransferChecked\)/],
    ['another attestation id', { attestationId: '8' }, /instruction 4 \(Memo\)/],
    ['the other side', { side: '1' }, /not the attestation's/],
    ['another mint', { assetAddress: testKey(40).address }, /not the attestation's/],
    ['a signature that is not the transaction’s', { signature: bytesToBase64(new Uint8Array(64).fill(7)) }, /does not carry this signature/],
    ['an additionalData that is no transaction', { additionalData: bytesToBase64(new Uint8Array(40).fill(1)) }, /not a Solana wire transaction|durable nonce/],
  ])('refuses an attestation whose fields were changed: %s', async (_, change, problem) => {
    const { fields, context } = await attestation();
    const verification = await verifySolanaAttestationTransaction({ ...fields, ...change }, context);
    expect(verification.valid).toBe(false);
    expect(verification.problem).toMatch(problem);
  });

  test('refuses a transaction changed after the issuer signed it, with the signature carried over', async () => {
    const { at, input, signed, fields, context } = await attestation();
    const cheaper = await compileSolanaAttestationTransaction({ ...input, price: input.price / 100n });
    const issuerSignature = base64ToBytes(signed.signature);
    const tampered = { ...cheaper, signatures: { ...cheaper.signatures, [issuer.address]: issuerSignature } } as Transaction;
    const verification = await verifySolanaAttestationTransaction({ ...fields, additionalData: getBase64EncodedWireTransaction(tampered) }, context);
    expect(verification).toMatchObject({ valid: false, problem: expect.stringMatching(/does not verify/) });
    expect(send(at.svm, signedBy(tampered, user))).not.toBeNull();
  });

  test('refuses a transaction the issuer signed for another treasury or another user than expected', async () => {
    const { fields, context } = await attestation();
    expect(await verifySolanaAttestationTransaction(fields, { ...context, treasury: testKey(41).address })).toMatchObject({ valid: false, problem: expect.stringMatching(/instruction 2/) });
    expect(await verifySolanaAttestationTransaction(fields, { ...context, userAddress: attacker.address })).toMatchObject({ valid: false, problem: expect.stringMatching(/built for/) });
  });

  test('refuses a signature of another key', async () => {
    const { input, context } = await attestation();
    const other = testKey(42);
    const signed = await signSolanaAttestationTransaction({ ...input, issuer: other.address }, (message) => ed25519.sign(message, other.seed));
    const verification = await verifySolanaAttestationTransaction(answered(input, signed), context);
    expect(verification.valid).toBe(false);
  });
});
