-- The broker key that signed a partner mint, recovered from its signature when the issuance was taken. The issuer
-- contract takes each nonce of a broker signer once (`brokerNonceUsed`, on each chain): two live mints signed with one
-- nonce would leave the second refused on chain and held for review with its limit. The index refuses the second at
-- issuance, also when both arrive at once. A rejected mint minted nothing, so its nonce is free again, as on chain.
-- Mints stored before this migration have no signer recorded and are not indexed.
ALTER TABLE partner_requests ADD COLUMN broker_signer text CHECK (broker_signer ~ '^0x[0-9a-f]{40}$');
CREATE UNIQUE INDEX partner_requests_broker_nonce ON partner_requests (chain, broker_signer, (mint_request ->> 'nonce'))
  WHERE kind = 'mint' AND state <> 'rejected';
