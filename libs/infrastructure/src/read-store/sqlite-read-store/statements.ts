/** Prepared statements by SQL text, per connection: preparing costs about as much as running a small statement. */
import type Database from 'better-sqlite3';

export type Statement = Database.Statement<unknown[], unknown>;

export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Database.Database) {}

  /** The statement for `sql`, prepared once (`pluck`: rows as their first column). */
  get(sql: string, pluck = false): Statement {
    return this.prepared(pluck ? 'pluck' : 'rows', sql);
  }

  /** The statement for `sql`, prepared once, answering rows as arrays of their columns. */
  raw(sql: string): Statement {
    return this.prepared('raw', sql);
  }

  /** After a schema change: a statement may name a table that no longer exists. */
  clear(): void {
    this.statements.clear();
  }

  private prepared(mode: 'rows' | 'pluck' | 'raw', sql: string): Statement {
    const key = `${mode}:${sql}`;
    let s = this.statements.get(key);
    if (!s) {
      s = this.db.prepare(sql);
      if (mode === 'pluck') s.pluck();
      else if (mode === 'raw') s.raw();
      this.statements.set(key, s);
    }
    return s;
  }
}
