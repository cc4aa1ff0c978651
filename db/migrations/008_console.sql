-- The operator console (/console): sessions opened by signing in with an admin key (the browser holds only a random
-- session id; its SHA-256 is stored here, never the key), and the audit of every action taken through the console.

CREATE TABLE console_sessions (
  id_hash     text PRIMARY KEY,
  key_id      text NOT NULL REFERENCES api_keys,
  -- The anti-forgery token every form of the session carries.
  csrf_token  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  ended_at    timestamptz
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

-- One row per action: who (the key and its name), when, what (the action and its target), why, and how it ended.
CREATE TABLE console_audit (
  id        bigserial PRIMARY KEY,
  at        timestamptz NOT NULL DEFAULT now(),
  key_id    text NOT NULL,
  key_name  text NOT NULL,
  action    text NOT NULL,
  target    text NOT NULL,
  reason    text,
  outcome   text NOT NULL CHECK (outcome IN ('done', 'refused', 'failed')),
  detail    text
);
CREATE INDEX console_audit_target ON console_audit (target, at DESC);
