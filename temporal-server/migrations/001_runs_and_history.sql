-- The durable mode of the Temporal service: executions, runs (also the visibility rows), every history event,
-- and the request ids applied to each run (start and signal dedupe).

CREATE TABLE temporal.executions (
  workflow_id text PRIMARY KEY,
  current_run_id text NOT NULL,
  current_seq bigint NOT NULL
);

CREATE TABLE temporal.runs (
  run_id text PRIMARY KEY,
  -- Creation order across the namespace: runs are rebuilt in this order (parents before children, a chain's
  -- runs in order).
  seq bigint NOT NULL UNIQUE,
  workflow_id text NOT NULL,
  workflow_type text NOT NULL,
  task_queue text NOT NULL,
  request_id text NOT NULL,
  parent_workflow_id text,
  parent_run_id text,
  first_execution_run_id text NOT NULL,
  continued_from_run_id text,
  start_time timestamptz NOT NULL,
  -- temporal.api.enums.v1.WorkflowExecutionStatus (1 = running).
  status smallint NOT NULL,
  close_time timestamptz,
  memo bytea,
  search_attributes bytea,
  history_length integer NOT NULL,
  -- What the run keeps beside its history: a transient workflow task, each pending activity's current
  -- attempt, events buffered during a started workflow task.
  state jsonb NOT NULL
);

CREATE INDEX runs_by_workflow_id ON temporal.runs (workflow_id, seq);
CREATE INDEX runs_by_status ON temporal.runs (status, start_time);

CREATE TABLE temporal.events (
  run_id text NOT NULL,
  event_id integer NOT NULL,
  -- temporal.api.history.v1.HistoryEvent, protobuf-encoded.
  data bytea NOT NULL,
  PRIMARY KEY (run_id, event_id)
);

CREATE TABLE temporal.request_ids (
  run_id text NOT NULL,
  request_id text NOT NULL,
  PRIMARY KEY (run_id, request_id)
);
