-- The wallet allow-list (the reference issuer's INVALID_ADDRESS): an account may be set to trade only through wallets
-- an operator listed for it, per chain. Off for every account unless an operator turns it on, so existing accounts
-- and the development keys trade as before. Addresses are stored canonical: lowercase hex on the EVM chains, the
-- base58 text (case-sensitive) on Solana.
ALTER TABLE accounts ADD COLUMN require_allowed_wallets boolean NOT NULL DEFAULT false;

CREATE TABLE allowed_wallets (
  account_id text NOT NULL REFERENCES accounts,
  chain      text NOT NULL CHECK (chain IN ('ethereum-1', 'bsc-56', 'solana-900')),
  address    text NOT NULL,
  added_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, chain, address),
  CHECK (CASE WHEN chain = 'solana-900' THEN address ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}$' ELSE address ~ '^0x[0-9a-f]{40}$' END)
);

-- Chains an operator paused (the reference issuer's PAUSED_GM_CHAIN): no attestation or soft quote on the chain while
-- its row exists. The chain watcher is not affected: attestations already issued still execute and are recorded.
CREATE TABLE chain_pauses (
  chain     text PRIMARY KEY CHECK (chain IN ('ethereum-1', 'bsc-56', 'solana-900')),
  reason    text NOT NULL,
  paused_at timestamptz NOT NULL DEFAULT now()
);
