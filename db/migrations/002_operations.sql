-- Operator state: API keys, market and asset statuses, per-session limits.

CREATE TABLE api_keys (
  id                    text PRIMARY KEY,
  name                  text NOT NULL,
  scope                 text NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
  key_hash              bytea NOT NULL UNIQUE,
  rate_limit_per_second integer,
  rate_limit_burst      integer,
  created_at            timestamptz NOT NULL DEFAULT now(),
  revoked_at            timestamptz
);

-- A single row: whether an operator has paused the whole market.
CREATE TABLE market_state (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  paused     boolean NOT NULL DEFAULT false,
  reason     text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO market_state (singleton) VALUES (true);

-- Asset status events: unscheduled pauses/limits set by an operator, or scheduled windows
-- (dividends, splits, maintenance). Active while starts_at <= now < ends_at (ends_at null = open-ended).
CREATE TABLE asset_status_events (
  event_id                 text PRIMARY KEY,
  symbol                   text NOT NULL REFERENCES assets ON DELETE CASCADE,
  code                     text NOT NULL CHECK (code IN ('ASSET_PAUSED', 'ASSET_LIMITED')),
  type                     text NOT NULL CHECK (type IN ('scheduled', 'unscheduled')),
  reason                   text NOT NULL,
  starts_at                bigint NOT NULL,
  ends_at                  bigint CHECK (ends_at IS NULL OR ends_at > starts_at),
  update_shares_multiplier boolean NOT NULL DEFAULT false,
  created_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX asset_status_events_symbol ON asset_status_events (symbol, starts_at);

CREATE TABLE session_limits (
  symbol                    text NOT NULL REFERENCES assets ON DELETE CASCADE,
  session                   text NOT NULL CHECK (session IN ('premarket', 'regular', 'postmarket', 'overnight', 'offhours')),
  tradable                  boolean NOT NULL,
  max_attestation_count     integer NOT NULL CHECK (max_attestation_count >= 0),
  max_active_notional_value numeric NOT NULL CHECK (max_active_notional_value >= 0),
  PRIMARY KEY (symbol, session)
);
