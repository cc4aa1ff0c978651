/**
 * `npm run verify -- [FILE]`: verifies an attestation (the JSON `POST /v1/attestations` answered, from FILE or stdin)
 * as its recipient would, against the signers published at GET /v1/attestations/signers (or a file of them): the
 * quote rebuilt from the answer's fields and its EIP-712 signature recovered (ethereum-1, bsc-56); on solana-900 the
 * issuer's ed25519 signature over the transaction message in `additionalData`, that message being exactly the one the
 * attestation's fields make with the issuer's stablecoin mint and treasury (signing/verify-attestation.ts).
 * Exits 0 when valid, 1 when not, 2 when it could not check.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Address } from '@solana/kit';
import { SOLANA_STABLECOIN_DECIMALS, SOLANA_TOKEN_DECIMALS, solanaTreasury } from '../chains/solana-context';
import { exitWithUsageOnHelp } from '../config/cli';
import { loadConfig } from '../config';
import { bareChainId, SOLANA_CHAIN } from '../domain/chains';
import { isValidSolanaAddress, verifyAttestation, type AttestationFields, type SignerPublicInfo } from '../signing';
import { readStackFile } from '../start/stack-file';

const usage = `usage: npm run verify -- [FILE] [--api URL] [--key KEY] [--signers FILE] [--stablecoin-mint ADDRESS]
  FILE                      an attestation as POST /v1/attestations answers it (default: read from stdin)
  --api URL                 the API base, e.g. http://127.0.0.1:8080/v1 (default: api of DATA_DIR/stack.json)
  --key KEY                 a key to read GET /v1/attestations/signers with (default: the read key of DATA_DIR/stack.json)
  --signers FILE            the published signers as JSON (what GET /v1/attestations/signers answers), instead of asking the API
  --stablecoin-mint ADDRESS solana-900: the issuer's stablecoin mint the transaction pays or is paid in (default: the
                            published one, else chains["solana-900"].stablecoinMint of DATA_DIR/stack.json); the
                            treasury is its associated account of the published Solana signer
exits 0 when the signature is the published signer's (and, on Solana, the transaction is the attestation's), 1 when not`;

async function publishedSigners(values: { api?: string; key?: string; signers?: string }, stack: ReturnType<typeof readStackFile>): Promise<SignerPublicInfo> {
  if (values.signers) return JSON.parse(readFileSync(values.signers, 'utf8')) as SignerPublicInfo;
  const api = values.api ?? stack?.api;
  const key = values.key ?? stack?.keys?.read;
  if (!api || !key) throw new Error('no API or key: pass --api and --key (or --signers), or run `npm start` first so DATA_DIR/stack.json names them');
  const response = await fetch(`${api}/attestations/signers`, { headers: { 'x-api-key': key } });
  if (!response.ok) throw new Error(`GET ${api}/attestations/signers answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as SignerPublicInfo;
}

/** The issuer's Solana accounts the transaction is checked against: the stablecoin mint given, published or in the stack file. */
async function solanaAccounts(signers: SignerPublicInfo, stablecoinMint: string | undefined, stack: ReturnType<typeof readStackFile>) {
  const chains = stack?.['chains'] as Record<string, { stablecoinMint?: string } | undefined> | undefined;
  const mint = stablecoinMint ?? signers.solana.stablecoinMint ?? chains?.[SOLANA_CHAIN]?.stablecoinMint;
  if (!mint) throw new Error(`a Solana attestation is checked against the issuer's stablecoin mint: none is published; pass --stablecoin-mint`);
  if (!isValidSolanaAddress(mint)) throw new Error(`--stablecoin-mint ${mint} is not a Solana address`);
  return {
    stablecoinMint: mint as Address,
    stablecoinDecimals: signers.solana.stablecoinDecimals ?? SOLANA_STABLECOIN_DECIMALS,
    treasury: await solanaTreasury(signers.solana.publicKey as Address, mint as Address),
    stockDecimals: SOLANA_TOKEN_DECIMALS,
  };
}

async function main(): Promise<void> {
  exitWithUsageOnHelp(usage);
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { api: { type: 'string' }, key: { type: 'string' }, signers: { type: 'string' }, 'stablecoin-mint': { type: 'string' } },
  });
  const stack = readStackFile(loadConfig(['DATA_DIR']).DATA_DIR);
  const attestation = JSON.parse(readFileSync(positionals[0] ?? 0, 'utf8')) as AttestationFields;
  if (typeof attestation.signature !== 'string') throw new Error(`not an attestation (no signature): ${JSON.stringify(attestation).slice(0, 200)}`);

  const signers = await publishedSigners(values, stack);
  const solana = String(attestation.chainId) === String(bareChainId(SOLANA_CHAIN)) ? await solanaAccounts(signers, values['stablecoin-mint'], stack) : undefined;
  const verification = await verifyAttestation(attestation, signers, solana);
  const signer = verification.scheme === 'eip712' ? `EIP-712 signer ${verification.expected}` : `ed25519 public key ${verification.expected}`;
  const transaction = verification.nonceAccount
    ? `; its transaction is the attestation's, for the wallet ${verification.user}, on the durable nonce ${verification.nonce} of ${verification.nonceAccount}`
    : '';
  if (verification.valid) {
    process.stdout.write(`valid: attestation ${attestation.attestationId} on ${verification.chain} is signed by the published ${signer}${transaction}\n`);
  } else {
    process.stdout.write(`INVALID: attestation ${attestation.attestationId} on ${verification.chain}: ${verification.problem} (published: ${signer})\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
