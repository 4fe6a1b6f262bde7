import { ToolError } from '../tool-adapter.port';
import { MAX_SQL_CHARS, singleStatement, type SqlDialect } from './sql-statement';

const accepted = (sql: string, dialect: SqlDialect = 'postgres') => singleStatement(sql, dialect);
const refusal = (sql: string, dialect: SqlDialect = 'postgres'): string => {
  try {
    singleStatement(sql, dialect);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('INVALID_ARGUMENT');
    return (error as ToolError).message;
  }
  throw new Error(`accepted: ${sql}`);
};

describe('one statement only (the SQL tools refuse a second before sending anything)', () => {
  it('given one statement with trailing semicolons and comments, when scanned, then it is kept without them, with its first keyword', () => {
    expect(accepted('  select count(*) from orders;;  -- done\n')).toEqual({ text: 'select count(*) from orders', keyword: 'select' });
    expect(accepted('/* why */ WITH x AS (SELECT 1) SELECT * FROM x;')).toEqual({ text: 'WITH x AS (SELECT 1) SELECT * FROM x', keyword: 'with' });
    expect(accepted('# note\nSHOW TABLES', 'mysql').keyword).toBe('show');
  });

  it('given two statements, when scanned, then it is refused naming the rule', () => {
    expect(refusal('select 1; select 2')).toMatch(/only one statement/);
    expect(refusal('select 1;update orders set total = 0', 'mysql')).toMatch(/only one statement/);
    expect(refusal("select 1; -- x\n/* y */ delete from t")).toMatch(/only one statement/);
  });

  it('given a semicolon inside a string, a quoted name, a comment or a dollar-quoted body, when scanned, then it is not a separator', () => {
    expect(accepted("select 'a;b', \"c;d\" from t -- e;f\n").text).toBe("select 'a;b', \"c;d\" from t");
    expect(accepted("select 'it''s; fine'").text).toBe("select 'it''s; fine'");
    expect(accepted('select $$a;b$$, $tag$ $$; $tag$').text).toBe('select $$a;b$$, $tag$ $$; $tag$');
    expect(accepted('select 1 /* a /* nested; */ still; comment */').text).toBe('select 1');
    expect(accepted("select `a;b`, 'x\\';y' from t", 'mysql').text).toBe("select `a;b`, 'x\\';y' from t");
    expect(accepted("select E'x\\';y'").text).toBe("select E'x\\';y'");
  });

  it('given the quoting rules of the other dialect, when scanned, then each dialect reads its own', () => {
    // PostgreSQL: a backslash does not escape in a standard string, so the string ends at the second quote.
    expect(refusal("select 'a\\'; select 2")).toMatch(/only one statement/);
    // MySQL block comments do not nest: the first */ ends the comment.
    expect(refusal('select 1 /* a /* b */ ; select 2 */', 'mysql')).toMatch(/only one statement/);
    // MySQL needs a blank after --; `1--1` is arithmetic.
    expect(accepted('select 1--1', 'mysql').text).toBe('select 1--1');
    // `$1` is a parameter and `a$b$` part of a name, not dollar quotes.
    expect(accepted('select a$b$ from t where x = $1').text).toBe('select a$b$ from t where x = $1');
  });

  it('given what would leave the read-only guard, when scanned, then it is refused before sending', () => {
    for (const sql of ['COMMIT', 'begin; select 1', 'set statement_timeout = 0', 'SET SESSION TRANSACTION READ WRITE', '/* x */ rollback', 'start transaction read write', 'reset all']) {
      expect(refusal(sql, sql.includes('SESSION') ? 'mysql' : 'postgres')).toMatch(/only one statement|are not accepted/);
    }
    expect(refusal('select /*! 1; drop table t */', 'mysql')).toMatch(/executable comments/);
    // Reads that write files on the server, which a read-only transaction would let through.
    expect(refusal("COPY (select 1) TO PROGRAM 'touch /tmp/x'")).toMatch(/'COPY' statements are not accepted/);
    expect(refusal("select * from orders into /* x */ OUTFILE '/tmp/o'", 'mysql')).toMatch(/INTO OUTFILE/);
    expect(refusal("select 1 into dumpfile '/tmp/o'", 'mysql')).toMatch(/INTO DUMPFILE/);
    expect(accepted("select 'into outfile' as into_outfile", 'mysql').keyword).toBe('select');
  });

  it('given an empty, unterminated or oversized text, when scanned, then the refusal says which', () => {
    expect(refusal(' ; -- nothing\n')).toMatch(/empty/);
    expect(refusal("select 'open")).toMatch(/unterminated string/);
    expect(refusal('select "open')).toMatch(/unterminated quoted name/);
    expect(refusal('select 1 /* open')).toMatch(/unterminated \/\* comment/);
    expect(refusal('select $x$ open')).toMatch(/unterminated dollar-quoted/);
    expect(refusal(`select '${'x'.repeat(MAX_SQL_CHARS)}'`)).toMatch(/longer than 100000/);
  });

  it('given adversarial input at the size limit, when scanned, then it takes linear time', () => {
    const inputs = ["'".repeat(MAX_SQL_CHARS - 1), '/*'.repeat(MAX_SQL_CHARS / 2 - 1), `select ${'$a'.repeat(MAX_SQL_CHARS / 2 - 8)}`, '-'.repeat(MAX_SQL_CHARS - 1), `select ${'\\'.repeat(MAX_SQL_CHARS - 10)}`];
    const started = Date.now();
    for (const sql of inputs) for (const dialect of ['postgres', 'mysql'] as const) {
      try {
        singleStatement(sql, dialect);
      } catch (error) {
        expect(error).toBeInstanceOf(ToolError);
      }
    }
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
