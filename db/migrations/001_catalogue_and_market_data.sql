-- The token catalogue, its on-chain addresses, corporate actions and market data.
-- Timestamps that the API hands out as epoch milliseconds are stored as bigint ms.

CREATE TABLE assets (
  symbol             text PRIMARY KEY CHECK (length(symbol) >= 3 AND symbol LIKE '%on'),
  ticker             text NOT NULL UNIQUE,
  name               text NOT NULL,
  kind               text NOT NULL CHECK (kind IN ('stock', 'etf', 'portfolio')),
  tradable_sessions  text[] NOT NULL,
  tradable_offhours  boolean NOT NULL,
  listed_at          bigint NOT NULL,
  shares_outstanding numeric NOT NULL,
  average_volume     numeric NOT NULL,
  holders            integer NOT NULL,
  constituents       jsonb NOT NULL DEFAULT '[]'
);

CREATE TABLE asset_addresses (
  symbol           text NOT NULL REFERENCES assets ON DELETE CASCADE,
  network_chain_id text NOT NULL CHECK (network_chain_id IN ('ethereum-1', 'bsc-56', 'solana-900')),
  address          text NOT NULL,
  decimals         integer NOT NULL,
  PRIMARY KEY (symbol, network_chain_id)
);

CREATE TABLE shares_multiplier_changes (
  symbol            text NOT NULL REFERENCES assets ON DELETE CASCADE,
  changed_at        bigint NOT NULL,
  shares_multiplier numeric NOT NULL CHECK (shares_multiplier > 0),
  reason            text NOT NULL,
  PRIMARY KEY (symbol, changed_at)
);

CREATE TABLE dividends (
  symbol       text NOT NULL REFERENCES assets ON DELETE CASCADE,
  ex_date      date NOT NULL,
  payment_date date NOT NULL,
  cash_amount  numeric NOT NULL CHECK (cash_amount > 0),
  PRIMARY KEY (symbol, ex_date)
);

-- OHLC candles per token, market ('primary' = the token, 'underlying' = the stock) and interval.
CREATE TABLE candles (
  symbol       text NOT NULL REFERENCES assets ON DELETE CASCADE,
  market       text NOT NULL CHECK (market IN ('primary', 'underlying')),
  interval     text NOT NULL CHECK (interval IN ('1min', '5min', '15min', '1hour', '4hour', '12hour', '1day')),
  bucket_start bigint NOT NULL,
  open         numeric NOT NULL,
  high         numeric NOT NULL,
  low          numeric NOT NULL,
  close        numeric NOT NULL,
  volume       numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (symbol, market, interval, bucket_start)
);

CREATE TABLE latest_prices (
  symbol           text PRIMARY KEY REFERENCES assets ON DELETE CASCADE,
  token_price      numeric NOT NULL,
  underlying_price numeric NOT NULL,
  observed_at      bigint NOT NULL
);
