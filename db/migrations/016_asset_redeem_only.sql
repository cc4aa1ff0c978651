-- An operator may make an asset redeem-only for a window (the reference issuer's ASSET_REDEEM_ONLY): sells are
-- attested as usual, buys refused with 403 ASSET_REDEEM_ONLY.
ALTER TABLE asset_status_events DROP CONSTRAINT asset_status_events_code_check;
ALTER TABLE asset_status_events ADD CONSTRAINT asset_status_events_code_check CHECK (code IN ('ASSET_PAUSED', 'ASSET_LIMITED', 'ASSET_REDEEM_ONLY'));
