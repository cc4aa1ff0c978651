-- Attestations whose lifecycle workflow is still to be started: a row is written by the statement that stores the
-- attestation and deleted by the worker that started its workflow (a transactional outbox). A request never waits on
-- the Temporal service, and an attestation stored is never left without its workflow, whatever fails in between.
CREATE TABLE attestation_workflow_starts (
  attestation_id numeric PRIMARY KEY REFERENCES attestations ON DELETE CASCADE,
  stored_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX attestation_workflow_starts_order ON attestation_workflow_starts (stored_at);
