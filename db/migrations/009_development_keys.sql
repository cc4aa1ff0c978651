-- Development keys (npm start's read, write and admin keys and the brokerage sandbox's partner key) are marked as
-- such, so that a database holding real keys can refuse to be given development ones, and operators can find them.
ALTER TABLE api_keys ADD COLUMN development boolean NOT NULL DEFAULT false;
UPDATE api_keys SET development = true
 WHERE name IN ('development read key', 'development write key', 'development admin key', 'brokerage sandbox (partner)');
