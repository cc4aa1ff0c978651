/**
 * `npm run verify -- [FILE]`: verifies an attestation (the JSON `POST /v1/attestations` answered, from FILE or stdin)
 * as its recipient would: the signers published at GET /v1/attestations/signers, the quote rebuilt from the answer's
 * fields, its EIP-712 signature recovered (ethereum-1, bsc-56) or its ed25519 signature checked (solana-900).
 * Exits 0 when the signature is the published signer's, 1 otherwise.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { exitWithUsageOnHelp } from '../config/cli';
import { loadConfig } from '../config';
import { verifyAttestation, type AttestationFields, type SignerPublicInfo } from '../signing';
import { readStackFile } from '../start/stack-file';

const usage = `usage: npm run verify -- [FILE] [--api URL] [--key KEY]
  FILE       an attestation as POST /v1/attestations answers it (default: read from stdin)
  --api URL  the API base, e.g. http://127.0.0.1:8080/v1 (default: api of DATA_DIR/stack.json)
  --key KEY  a key to read GET /v1/attestations/signers with (default: the read key of DATA_DIR/stack.json)
exits 0 when the signature is the published signer's, 1 when it is not`;

async function main(): Promise<void> {
  exitWithUsageOnHelp(usage);
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { api: { type: 'string' }, key: { type: 'string' } } });
  const stack = readStackFile(loadConfig(['DATA_DIR']).DATA_DIR);
  const api = values.api ?? stack?.api;
  const key = values.key ?? stack?.keys?.read;
  if (!api || !key) throw new Error('no API or key: pass --api and --key, or run `npm start` first so DATA_DIR/stack.json names them');
  const attestation = JSON.parse(readFileSync(positionals[0] ?? 0, 'utf8')) as AttestationFields;
  if (typeof attestation.signature !== 'string') throw new Error(`not an attestation (no signature): ${JSON.stringify(attestation).slice(0, 200)}`);

  const response = await fetch(`${api}/attestations/signers`, { headers: { 'x-api-key': key } });
  if (!response.ok) throw new Error(`GET ${api}/attestations/signers answered ${response.status}: ${await response.text()}`);
  const signers = (await response.json()) as SignerPublicInfo;
  const verification = await verifyAttestation(attestation, signers);
  const signer = verification.scheme === 'eip712' ? `EIP-712 signer ${verification.expected}` : `ed25519 public key ${verification.expected}`;
  if (verification.valid) {
    process.stdout.write(`valid: attestation ${attestation.attestationId} on ${verification.chain} is signed by the published ${signer}\n`);
  } else {
    process.stdout.write(`INVALID: attestation ${attestation.attestationId} on ${verification.chain}: ${verification.problem} (published: ${signer})\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
