-- Entity Memory cluster schema (DESIGN §11). Idempotent: every instance runs it at start.
-- Times are milliseconds since 1970, as the API speaks them.

CREATE TABLE IF NOT EXISTS instance (
  id text PRIMARY KEY,
  url text NOT NULL,
  weight int NOT NULL DEFAULT 1,
  healthy bool
);

-- Which instance owns a user's data directory. `epoch` rises at every move; `state` is
-- 'active', 'moving' (pre-copy while live) or 'frozen' (writes refused during the final copy).
CREATE TABLE IF NOT EXISTS user_shard (
  user_id text PRIMARY KEY,
  shard text NOT NULL,
  epoch bigint NOT NULL,
  state text NOT NULL CHECK (state IN ('active', 'moving', 'frozen'))
);

CREATE TABLE IF NOT EXISTS auth_user (
  id text PRIMARY KEY,
  email text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  admin bool NOT NULL,
  disabled bool NOT NULL,
  session_version int NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  prefs jsonb
);
-- How a user signs in when not with a password ({kind, issuer, subject}: single sign-on, DESIGN §17); set once, at creation.
ALTER TABLE auth_user ADD COLUMN IF NOT EXISTS identity jsonb;

-- Personal API tokens, as sha256 hashes only.
CREATE TABLE IF NOT EXISTS auth_token (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES auth_user (id) ON DELETE CASCADE,
  name text NOT NULL,
  hash text NOT NULL UNIQUE,
  created_at bigint NOT NULL,
  last_used_at bigint,
  expires_at bigint
);
-- A token's scopes (NULL: made before scopes, every scope) and its one project (DESIGN §17).
ALTER TABLE auth_token ADD COLUMN IF NOT EXISTS scopes text[];
ALTER TABLE auth_token ADD COLUMN IF NOT EXISTS project_id text;

-- Cluster-wide settings: the sign-up switch, the shared cookie-signing secret.
CREATE TABLE IF NOT EXISTS auth_setting (
  key text PRIMARY KEY,
  value text NOT NULL
);

-- Failed sign-ins, shared: a sign-in may reach any instance.
CREATE TABLE IF NOT EXISTS sign_in_failure (
  key text NOT NULL,
  at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS sign_in_failure_key_at ON sign_in_failure (key, at);

-- Places a new user on the instance with the fewest users per unit of weight, in one statement
-- for the caller. The table lock makes concurrent placements see each other's rows (a plain
-- INSERT ... SELECT would have every concurrent one count from the same snapshot and pick the
-- same instance). An existing placement is returned unchanged.
CREATE OR REPLACE FUNCTION place_user(p_user_id text)
RETURNS TABLE (shard text, epoch bigint, state text)
LANGUAGE plpgsql AS $$
BEGIN
  LOCK TABLE user_shard IN SHARE ROW EXCLUSIVE MODE;
  RETURN QUERY
    INSERT INTO user_shard AS us (user_id, shard, epoch, state)
    SELECT p_user_id, i.id, 1, 'active'
    FROM instance i
    LEFT JOIN (SELECT u.shard AS id, count(*) AS n FROM user_shard u GROUP BY u.shard) c ON c.id = i.id
    WHERE i.healthy IS NOT FALSE AND i.weight > 0
    ORDER BY (coalesce(c.n, 0) + 1)::float8 / i.weight, i.id
    LIMIT 1
    ON CONFLICT (user_id) DO NOTHING
    RETURNING us.shard, us.epoch, us.state;
  IF NOT FOUND THEN
    RETURN QUERY SELECT u.shard, u.epoch, u.state FROM user_shard u WHERE u.user_id = p_user_id;
  END IF;
END
$$;

-- Which user a share link belongs to: `/s/<id>` names no user. The link itself lives in its
-- owner's folder (users/<id>/share-links.json) and moves with it; HAProxy's map sync routes
-- `/s/<id>` by this table to the owner's instance.
CREATE TABLE IF NOT EXISTS share_link (
  id text PRIMARY KEY,
  user_id text NOT NULL
);
CREATE INDEX IF NOT EXISTS share_link_user ON share_link (user_id);
