-- An account's attestations newest first, for GET /v1/attestations and its cursor (created_at, attestation_id).
CREATE INDEX attestations_account_created ON attestations (account_id, created_at DESC, attestation_id DESC);
