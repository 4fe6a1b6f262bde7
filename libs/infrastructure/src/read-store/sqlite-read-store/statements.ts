/** Prepared statements by SQL text, per connection: preparing costs about as much as running a small statement. */
import type Database from 'better-sqlite3';

export type Statement = Database.Statement<unknown[], unknown>;

export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Database.Database) {}

  /** The statement for `sql`, prepared once (`pluck`: rows as their first column). */
  get(sql: string, pluck = false): Statement {
    const key = pluck ? `P${sql}` : `R${sql}`;
    let s = this.statements.get(key);
    if (!s) {
      s = this.db.prepare(sql);
      if (pluck) s.pluck();
      this.statements.set(key, s);
    }
    return s;
  }

  /** The statement for `sql`, prepared once, answering rows as arrays of their columns. */
  raw(sql: string): Statement {
    const key = `A${sql}`;
    let s = this.statements.get(key);
    if (!s) {
      s = this.db.prepare(sql).raw();
      this.statements.set(key, s);
    }
    return s;
  }

  /** After a schema change: a statement may name a table that no longer exists. */
  clear(): void {
    this.statements.clear();
  }
}
