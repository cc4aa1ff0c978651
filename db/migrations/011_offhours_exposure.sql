-- The issuer's off-hours exposure kept in place: per off-hours session (by the instant it started), the notional of
-- its attestations that are outstanding, executing or executed, per asset and for all assets ('*'). A trigger keeps it
-- equal to the attestations whatever changes them (creation, expiry, execution, a reorganisation's undo), so the
-- caps are checked against two rows instead of a sum over the session's attestations. Exposure is this less the
-- outstanding attestations already past their expiry that their workflow has not yet marked expired.
CREATE TABLE offhours_exposure (
  session_started_at bigint NOT NULL,
  symbol             text NOT NULL,
  notional           numeric NOT NULL,
  PRIMARY KEY (session_started_at, symbol)
);

-- The all-assets row first, then the asset's: every writer locks them in this order.
CREATE FUNCTION add_offhours_exposure(started bigint, asset text, amount numeric) RETURNS void LANGUAGE sql AS $$
  INSERT INTO offhours_exposure AS e (session_started_at, symbol, notional) VALUES (started, '*', amount), (started, asset, amount)
  ON CONFLICT (session_started_at, symbol) DO UPDATE SET notional = e.notional + EXCLUDED.notional
$$;

CREATE FUNCTION count_offhours_exposure() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was_counted boolean := TG_OP <> 'INSERT' AND OLD.session = 'offhours' AND OLD.state IN ('outstanding', 'executing', 'executed');
  is_counted boolean := TG_OP <> 'DELETE' AND NEW.session = 'offhours' AND NEW.state IN ('outstanding', 'executing', 'executed');
BEGIN
  IF was_counted AND is_counted AND OLD.session_started_at = NEW.session_started_at AND OLD.symbol = NEW.symbol
     AND OLD.notional = NEW.notional THEN
    RETURN NULL;
  END IF;
  IF was_counted THEN
    PERFORM add_offhours_exposure(OLD.session_started_at, OLD.symbol, -OLD.notional);
  END IF;
  IF is_counted THEN
    PERFORM add_offhours_exposure(NEW.session_started_at, NEW.symbol, NEW.notional);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER attestations_offhours_exposure
  AFTER INSERT OR DELETE OR UPDATE OF state, notional, session, session_started_at, symbol ON attestations
  FOR EACH ROW EXECUTE FUNCTION count_offhours_exposure();

INSERT INTO offhours_exposure (session_started_at, symbol, notional)
  SELECT session_started_at, symbol, sum(notional) FROM attestations
   WHERE session = 'offhours' AND state IN ('outstanding', 'executing', 'executed') GROUP BY session_started_at, symbol
  UNION ALL
  SELECT session_started_at, '*', sum(notional) FROM attestations
   WHERE session = 'offhours' AND state IN ('outstanding', 'executing', 'executed') GROUP BY session_started_at;

-- The outstanding off-hours attestations past their expiry, subtracted from the ledger.
CREATE INDEX attestations_offhours_lapsed ON attestations (session_started_at, expires_at) WHERE session = 'offhours' AND state = 'outstanding';
