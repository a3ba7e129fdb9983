// The tracker's SQLite repository: issues, comments, keys and their claims.
import Database from 'better-sqlite3';
import { migrate } from './migrations';
import type { KeyedRequest } from './errors';

/** An issue as the tracker returns it. */
export interface Issue {
  repo: string;
  number: number;
  title: string;
  body: string;
  labels: string[];
  createdAt: string;
}

/** A comment as the tracker returns it. */
export interface Comment {
  id: number;
  repo: string;
  issueNumber: number;
  body: string;
  createdAt: string;
}

/** The response first made under an idempotency key. */
export interface StoredResponse {
  key: string;
  fingerprint: string;
  status: number;
  body: unknown;
  createdMs: number;
  /** The request the key was first used for (absent in a row older than the tracker's keeping it). */
  request?: KeyedRequest;
}

/** A key claimed by a request that is still in flight: until it commits, the key's other requests wait. */
export interface KeyClaim {
  key: string;
  fingerprint: string;
  claimedMs: number;
  /** The tracker process (its boot id) whose request holds the claim. */
  owner: string;
}

/**
 * How hard SQLite works to make each commit durable. `full` (the default) survives power loss;
 * `normal` survives a crash of the tracker process but not of the machine, and is what sweeps use to
 * run fast; `off` leaves it to the OS.
 */
export type SyncMode = 'full' | 'normal' | 'off';

interface IssueRow {
  repo: string;
  number: number;
  title: string;
  body: string;
  labels: string;
  created_at: string;
}

interface CommentRow {
  id: number;
  repo: string;
  issue_number: number;
  body: string;
  created_at: string;
}

/**
 * The tracker's data access: every SQL statement lives here. Lookups return `null` for "not found";
 * callers decide what that means over HTTP.
 */
export class Store {
  private readonly db: Database.Database;

  /** Opens (creating if needed) the database at `file`, or an in-memory one for `:memory:`. */
  constructor(file: string, sync: SyncMode = 'full') {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${sync.toUpperCase()}`);
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    migrate(this.db);
  }

  /** Runs `fn` in one transaction: the effect and the key it was made under commit together or not at all. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  createIssue(repo: string, title: string, body: string, labels: string[], createdAt: string): Issue {
    const next = this.db.prepare('SELECT COALESCE(MAX(number), 0) + 1 AS n FROM issues WHERE repo = ?').get(repo) as {
      n: number;
    };
    this.db
      .prepare('INSERT INTO issues (repo, number, title, body, labels, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(repo, next.n, title, body, JSON.stringify(labels), createdAt);
    return { repo, number: next.n, title, body, labels, createdAt };
  }

  getIssue(repo: string, number: number): Issue | null {
    const row = this.db.prepare('SELECT * FROM issues WHERE repo = ? AND number = ?').get(repo, number) as
      IssueRow | undefined;
    return row ? toIssue(row) : null;
  }

  addComment(repo: string, issueNumber: number, body: string, createdAt: string): Comment {
    const info = this.db
      .prepare('INSERT INTO comments (repo, issue_number, body, created_at) VALUES (?, ?, ?, ?)')
      .run(repo, issueNumber, body, createdAt);
    return { id: Number(info.lastInsertRowid), repo, issueNumber, body, createdAt };
  }

  commentsOf(repo: string, issueNumber: number): Comment[] {
    const rows = this.db
      .prepare('SELECT * FROM comments WHERE repo = ? AND issue_number = ? ORDER BY id')
      .all(repo, issueNumber) as CommentRow[];
    return rows.map(toComment);
  }

  /** Issues of `repo` whose title, body or any comment contains `text` (all issues when `text` is empty). */
  searchIssues(repo: string, text: string): Issue[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM issues i WHERE i.repo = ? AND (
           ? = '' OR instr(lower(i.title), lower(?)) > 0 OR instr(lower(i.body), lower(?)) > 0 OR EXISTS (
             SELECT 1 FROM comments c WHERE c.repo = i.repo AND c.issue_number = i.number AND instr(lower(c.body), lower(?)) > 0))
         ORDER BY i.number`,
      )
      .all(repo, text, text, text, text) as IssueRow[];
    return rows.map(toIssue);
  }

  /** How many issues and comments `repo` holds: the ground truth a crash sweep counts from. */
  counts(repo: string): { issues: number; comments: number } {
    const issues = this.db.prepare('SELECT COUNT(*) AS n FROM issues WHERE repo = ?').get(repo) as { n: number };
    const comments = this.db.prepare('SELECT COUNT(*) AS n FROM comments WHERE repo = ?').get(repo) as { n: number };
    return { issues: issues.n, comments: comments.n };
  }

  /** Every issue of `repo` with its comments, in order: what a crash sweep audits effect by effect. */
  contents(repo: string): Array<Issue & { comments: Comment[] }> {
    const issues = (this.db.prepare('SELECT * FROM issues WHERE repo = ? ORDER BY number').all(repo) as IssueRow[]).map(
      toIssue,
    );
    const comments = (
      this.db.prepare('SELECT * FROM comments WHERE repo = ? ORDER BY id').all(repo) as CommentRow[]
    ).map(toComment);
    return issues.map((i) => ({ ...i, comments: comments.filter((c) => c.issueNumber === i.number) }));
  }

  getKey(key: string): StoredResponse | null {
    const row = this.db.prepare('SELECT * FROM idempotency_keys WHERE key = ?').get(key) as
      | { key: string; fingerprint: string; status: number; body: string; created_ms: number; request: string | null }
      | undefined;
    if (!row) return null;
    return {
      key: row.key,
      fingerprint: row.fingerprint,
      status: row.status,
      body: JSON.parse(row.body),
      createdMs: row.created_ms,
      ...(row.request ? { request: JSON.parse(row.request) as KeyedRequest } : {}),
    };
  }

  putKey(entry: StoredResponse): void {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO idempotency_keys (key, fingerprint, status, body, created_ms, request) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        entry.key,
        entry.fingerprint,
        entry.status,
        JSON.stringify(entry.body),
        entry.createdMs,
        entry.request ? JSON.stringify(entry.request) : null,
      );
  }

  /** The live claim on `key`: a request with it is in flight. */
  getClaim(key: string): KeyClaim | null {
    const row = this.db.prepare('SELECT * FROM key_claims WHERE key = ?').get(key) as
      { key: string; fingerprint: string; claimed_ms: number; owner: string } | undefined;
    return row ? { key: row.key, fingerprint: row.fingerprint, claimedMs: row.claimed_ms, owner: row.owner } : null;
  }

  putClaim(claim: KeyClaim): void {
    this.db
      .prepare('INSERT OR REPLACE INTO key_claims (key, fingerprint, claimed_ms, owner) VALUES (?, ?, ?, ?)')
      .run(claim.key, claim.fingerprint, claim.claimedMs, claim.owner);
  }

  /** Ends the claim on `key`; with `claimedMs`, only the claim made then (a later request's claim stays). */
  deleteClaim(key: string, claimedMs?: number): void {
    if (claimedMs === undefined) this.db.prepare('DELETE FROM key_claims WHERE key = ?').run(key);
    else this.db.prepare('DELETE FROM key_claims WHERE key = ? AND claimed_ms = ?').run(key, claimedMs);
  }

  deleteKey(key: string): void {
    this.db.prepare('DELETE FROM idempotency_keys WHERE key = ?').run(key);
  }

  close(): void {
    this.db.close();
  }
}

function toIssue(row: IssueRow): Issue {
  return {
    repo: row.repo,
    number: row.number,
    title: row.title,
    body: row.body,
    labels: JSON.parse(row.labels) as string[],
    createdAt: row.created_at,
  };
}

function toComment(row: CommentRow): Comment {
  return { id: row.id, repo: row.repo, issueNumber: row.issue_number, body: row.body, createdAt: row.created_at };
}
