// The tracker's numbered migrations.
import type Database from 'better-sqlite3';

/**
 * Numbered schema migrations, applied in order, each once. `PRAGMA user_version` records how far a
 * database file has come, so an old file opened by a newer tracker is brought up to date.
 */
export const migrations: ReadonlyArray<string> = [
  // 1: issues, their comments, and the idempotency keys with the first response made under each.
  `
  CREATE TABLE issues (
    repo        TEXT    NOT NULL,
    number      INTEGER NOT NULL,
    title       TEXT    NOT NULL,
    body        TEXT    NOT NULL,
    labels      TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    PRIMARY KEY (repo, number)
  );
  CREATE TABLE comments (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    repo         TEXT    NOT NULL,
    issue_number INTEGER NOT NULL,
    body         TEXT    NOT NULL,
    created_at   TEXT    NOT NULL,
    FOREIGN KEY (repo, issue_number) REFERENCES issues (repo, number)
  );
  CREATE INDEX comments_by_issue ON comments (repo, issue_number);
  CREATE TABLE idempotency_keys (
    key          TEXT    PRIMARY KEY,
    fingerprint  TEXT    NOT NULL,
    status       INTEGER NOT NULL,
    body         TEXT    NOT NULL,
    created_ms   INTEGER NOT NULL
  );
  `,
  // 2: claims on keys whose first request is still in flight (a slow receiver answers their repeats 409).
  `
  CREATE TABLE key_claims (
    key          TEXT    PRIMARY KEY,
    fingerprint  TEXT    NOT NULL,
    claimed_ms   INTEGER NOT NULL,
    owner        TEXT    NOT NULL
  );
  `,
  // 3: the request each key was first used for, so a lookup can be matched against the call that asks.
  `
  ALTER TABLE idempotency_keys ADD COLUMN request TEXT;
  `,
];

/** Applies every migration the database has not seen yet, in one transaction each. */
export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version]);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
