-- The trading side of the sandbox, after the brokerage network's broker trading interface: orders of an account,
-- filled at the sandbox's price after a short latency, each fill journalled (shares from or to the market) and paid
-- from or into the account's cash. Positions and cash never go negative.

-- Shares bought come from the market and shares sold go to it: one side of such a movement is outside the sandbox.
ALTER TABLE broker.journal ALTER COLUMN to_account DROP NOT NULL;
ALTER TABLE broker.journal ADD CONSTRAINT journal_inside CHECK (from_account IS NOT NULL OR to_account IS NOT NULL);
ALTER TABLE broker.journal DROP CONSTRAINT journal_reason_check;
ALTER TABLE broker.journal ADD CONSTRAINT journal_reason_check CHECK (reason IN ('deposit', 'mint', 'redeem', 'trade'));

-- An account's cash (USD), moved by fills.
CREATE TABLE broker.cash (
  account_id uuid PRIMARY KEY REFERENCES broker.accounts (account_id),
  balance numeric(30, 9) NOT NULL CHECK (balance >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE broker.orders (
  order_id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES broker.accounts (account_id),
  client_order_id text NOT NULL,
  symbol text NOT NULL,
  qty numeric(30, 9) NOT NULL CHECK (qty > 0),
  side text NOT NULL CHECK (side IN ('buy', 'sell')),
  type text NOT NULL CHECK (type IN ('market', 'limit')),
  limit_price numeric(30, 9) CHECK (limit_price > 0),
  time_in_force text NOT NULL CHECK (time_in_force = 'day'),
  status text NOT NULL CHECK (status IN ('new', 'partially_filled', 'filled', 'canceled', 'rejected')),
  filled_qty numeric(30, 9) NOT NULL DEFAULT 0 CHECK (filled_qty >= 0 AND filled_qty <= qty),
  filled_avg_price numeric(30, 9),
  -- Why it was rejected or canceled.
  reason text,
  submitted_at timestamptz NOT NULL,
  filled_at timestamptz,
  -- The fill is due at (submission + latency); a limit order not marketable then is looked at again until the day ends.
  fill_due_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (account_id, client_order_id),
  CHECK ((type = 'limit') = (limit_price IS NOT NULL))
);
CREATE INDEX orders_open ON broker.orders (fill_due_at) WHERE status IN ('new', 'partially_filled');
CREATE INDEX orders_by_account ON broker.orders (account_id, submitted_at DESC);

ALTER TABLE broker.journal ADD COLUMN order_id uuid REFERENCES broker.orders (order_id);
