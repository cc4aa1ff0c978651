/** Attestation responses as a verifier (or a wallet submitting them on chain) reads them. */

/** The signed EIP-712 quote, rebuilt from an attestation response. */
export function quoteOf(body: Record<string, string>) {
  return {
    chainId: BigInt(body.chainId!),
    attestationId: BigInt(body.attestationId!),
    userId: body.userId as `0x${string}`,
    asset: body.assetAddress! as `0x${string}`,
    price: BigInt(body.price!),
    quantity: BigInt(body.tokenAmount!),
    expiration: BigInt(body.expiration!),
    side: Number(body.side) as 0 | 1,
    additionalData: `0x${Buffer.from(body.additionalData!, 'base64').toString('hex')}` as `0x${string}`,
  };
}

/** The 65-byte signature of an attestation response as hex, as a contract call takes it. */
export function signatureOf(body: { signature: string }): `0x${string}` {
  return `0x${Buffer.from(body.signature, 'base64').toString('hex')}`;
}
