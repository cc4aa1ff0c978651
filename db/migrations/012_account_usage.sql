-- What each account has attested per asset, kept in place like the off-hours exposure (migration 011): the count and
-- notional of its attestations outstanding or executing (whatever their session), and per session the notional
-- outstanding, executing or executed in it. A trigger keeps both equal to the attestations whatever changes them, so
-- the per-user limits read two rows instead of summing every attestation the user made for the asset. Usage is this
-- less the user's outstanding attestations already past their expiry that their workflow has not yet marked expired.
CREATE TABLE account_open_usage (
  account_id text NOT NULL,
  symbol     text NOT NULL,
  count      integer NOT NULL,
  notional   numeric NOT NULL,
  PRIMARY KEY (account_id, symbol)
);

CREATE TABLE account_session_usage (
  account_id         text NOT NULL,
  symbol             text NOT NULL,
  session_started_at bigint NOT NULL,
  notional           numeric NOT NULL,
  PRIMARY KEY (account_id, symbol, session_started_at)
);

CREATE FUNCTION add_account_open_usage(account text, asset text, attestations integer, amount numeric) RETURNS void LANGUAGE sql AS $$
  INSERT INTO account_open_usage AS u (account_id, symbol, count, notional) VALUES (account, asset, attestations, amount)
  ON CONFLICT (account_id, symbol) DO UPDATE SET count = u.count + EXCLUDED.count, notional = u.notional + EXCLUDED.notional
$$;

CREATE FUNCTION add_account_session_usage(account text, asset text, started bigint, amount numeric) RETURNS void LANGUAGE sql AS $$
  INSERT INTO account_session_usage AS u (account_id, symbol, session_started_at, notional) VALUES (account, asset, started, amount)
  ON CONFLICT (account_id, symbol, session_started_at) DO UPDATE SET notional = u.notional + EXCLUDED.notional
$$;

-- Every writer takes an account's open row before its session row.
CREATE FUNCTION count_account_usage() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was_open boolean := TG_OP <> 'INSERT' AND OLD.state IN ('outstanding', 'executing');
  is_open boolean := TG_OP <> 'DELETE' AND NEW.state IN ('outstanding', 'executing');
  was_in_session boolean := TG_OP <> 'INSERT' AND OLD.state IN ('outstanding', 'executing', 'executed');
  is_in_session boolean := TG_OP <> 'DELETE' AND NEW.state IN ('outstanding', 'executing', 'executed');
  same_row boolean := TG_OP = 'UPDATE' AND OLD.account_id = NEW.account_id AND OLD.symbol = NEW.symbol AND OLD.notional = NEW.notional;
BEGIN
  IF NOT (was_open AND is_open AND same_row) THEN
    IF was_open THEN
      PERFORM add_account_open_usage(OLD.account_id, OLD.symbol, -1, -OLD.notional);
    END IF;
    IF is_open THEN
      PERFORM add_account_open_usage(NEW.account_id, NEW.symbol, 1, NEW.notional);
    END IF;
  END IF;
  IF NOT (was_in_session AND is_in_session AND same_row AND OLD.session_started_at = NEW.session_started_at) THEN
    IF was_in_session THEN
      PERFORM add_account_session_usage(OLD.account_id, OLD.symbol, OLD.session_started_at, -OLD.notional);
    END IF;
    IF is_in_session THEN
      PERFORM add_account_session_usage(NEW.account_id, NEW.symbol, NEW.session_started_at, NEW.notional);
    END IF;
  END IF;
  RETURN NULL;
END
$$;

-- Triggers fire in the order of their names: this one after attestations_offhours_exposure, so every writer takes
-- the off-hours exposure rows before the account rows (an off-hours order locks the session's exposure row first).
CREATE TRIGGER attestations_usage_by_account
  AFTER INSERT OR DELETE OR UPDATE OF state, notional, session_started_at, symbol, account_id ON attestations
  FOR EACH ROW EXECUTE FUNCTION count_account_usage();

INSERT INTO account_open_usage (account_id, symbol, count, notional)
  SELECT account_id, symbol, count(*), sum(notional) FROM attestations
   WHERE state IN ('outstanding', 'executing') GROUP BY account_id, symbol;

INSERT INTO account_session_usage (account_id, symbol, session_started_at, notional)
  SELECT account_id, symbol, session_started_at, sum(notional) FROM attestations
   WHERE state IN ('outstanding', 'executing', 'executed') GROUP BY account_id, symbol, session_started_at;

-- A user's outstanding attestations past their expiry, subtracted from the ledger.
CREATE INDEX attestations_account_lapsed ON attestations (account_id, symbol, expires_at) WHERE state = 'outstanding';

-- The sums this ledger replaces were the only readers of these two.
DROP INDEX attestations_user_asset;
DROP INDEX attestations_session;
