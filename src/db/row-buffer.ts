// Inserts rows through multi-row INSERT statements: one call binds many rows, which at millions of rows halves the per-row cost.
import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";

export type Value = string | number | null;

function insertSql(table: string, columns: readonly string[], rows: number): string {
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${Array.from({ length: rows }, () => tuple).join(", ")}`;
}

/**
 * Collects rows and writes them `chunk` at a time with one prepared statement; `flush` writes the
 * remainder row by row. Rows land in the order they were added, so rowids follow that order.
 */
export class RowBuffer {
  private readonly width: number;
  private readonly many: Statement;
  private readonly one: Statement;
  private readonly values: Value[] = [];
  /** Rows inserted so far (buffered ones not counted). */
  written = 0;

  constructor(
    db: Database,
    table: string,
    columns: readonly string[],
    private readonly chunk: number,
  ) {
    this.width = columns.length;
    this.many = db.prepare(insertSql(table, columns, chunk));
    this.one = db.prepare(insertSql(table, columns, 1));
  }

  add(row: readonly Value[]): void {
    for (const value of row) this.values.push(value);
    if (this.values.length === this.chunk * this.width) {
      this.many.run(...(this.values as SQLQueryBindings[]));
      this.values.length = 0;
      this.written += this.chunk;
    }
  }

  /** Writes what is buffered; call before the transaction commits and before reading the table. */
  flush(): void {
    for (let start = 0; start < this.values.length; start += this.width) {
      this.one.run(...(this.values.slice(start, start + this.width) as SQLQueryBindings[]));
      this.written++;
    }
    this.values.length = 0;
  }

  finalize(): void {
    this.many.finalize();
    this.one.finalize();
  }
}
