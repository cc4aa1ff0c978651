-- The issuer's pool of durable nonce accounts on Solana. Each Solana attestation is a transaction whose lifetime is
-- one of these nonces (its first instruction advances it, the issuer being the nonce authority): it can land until
-- the nonce moves, and the attestation's workflow moves it at expiry. An account is
--   free       its nonce is the value on chain; the next attestation may sign over it;
--   held       by one attestation, whose transaction carries `nonce`;
--   advancing  that attestation expired or executed: the value on chain is being moved past `nonce` and read back.
-- It is free again only with a value read from the chain that differs from the one it was held with, so no two
-- attestations ever share a live nonce. Accounts are added (never removed) as the pool is refilled.
CREATE TABLE solana_nonce_accounts (
  address        text PRIMARY KEY CHECK (address ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}$'),
  -- The key allowed to advance it: the issuer's Solana key.
  authority      text NOT NULL CHECK (authority ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}$'),
  state          text NOT NULL DEFAULT 'free' CHECK (state IN ('free', 'held', 'advancing')),
  nonce          text NOT NULL CHECK (nonce ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}$'),
  attestation_id numeric(39, 0) UNIQUE,
  -- The holding attestation's expiry (epoch ms): past it, the account is due to be advanced.
  held_until     bigint,
  changed_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((state = 'free') = (attestation_id IS NULL)),
  CHECK ((state = 'free') = (held_until IS NULL))
);

-- The free accounts, least recently used first: what an attestation takes.
CREATE INDEX solana_nonce_accounts_free ON solana_nonce_accounts (changed_at, address) WHERE state = 'free';
