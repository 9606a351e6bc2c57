import pg, { type Query as PgQuery } from 'pg';
import type { Logger } from 'pino';

/**
 * SQLSTATEs of a named statement whose server connection is not the one pg prepared it on:
 * 42P05 duplicate_prepared_statement (another client prepared the name on this server connection)
 * and 26000 invalid_sql_statement_name (this client prepared it on another one). With pg's own
 * connections neither can happen; they mean something between us and PostgreSQL hands one server
 * connection to several clients: a transaction-mode pooler.
 */
const SHARED_CONNECTION_CODES = new Set(['42P05', '26000']);

export interface PreparedQueriesOptions {
  /** The pool reaches PostgreSQL through a transaction-mode pooler: never name statements. */
  readonly pooled: boolean;
  /**
   * How long a statement may go unanswered (0 or absent: no limit). It is pg's client-side
   * `query_timeout`, not PostgreSQL's statement_timeout: a frozen or unreachable server cannot
   * enforce its own timeout, and a transaction-mode pooler refuses statement_timeout as a startup
   * parameter. Past it the query fails with "Query read timeout" and the pool drops the connection.
   */
  readonly statementTimeoutMs?: number;
  readonly logger: Logger;
}

/**
 * The hot queries, run as named prepared statements (parsed once per connection) unless the pool
 * is pooled, where a named statement is session state that another client may find, or miss.
 * This is the one place that decides whether a statement gets a name.
 */
export class PreparedQueries {
  readonly #pool: pg.Pool;
  readonly #logger: Logger;
  readonly #timeout: { query_timeout?: number };
  #named: boolean;

  constructor(pool: pg.Pool, options: PreparedQueriesOptions) {
    this.#pool = pool;
    this.#logger = options.logger;
    this.#named = !options.pooled;
    this.#timeout = options.statementTimeoutMs ? { query_timeout: options.statementTimeoutMs } : {};
  }

  /** A query config carrying the statement timeout, for statements sent with pool.query directly. */
  timed<C extends pg.QueryConfig>(config: C): C {
    return this.#timeout.query_timeout ? { ...config, ...this.#timeout } : config;
  }

  /** Whether statements are currently named (false once pooled, or after a fallback). */
  get named(): boolean {
    return this.#named;
  }

  /**
   * Runs one statement on its own (autocommit). A safety net for poolers nobody told us about: if
   * the named form fails with 42P05 or 26000, the process switches to unnamed statements and runs
   * this one again, unnamed. The retry cannot apply anything twice: pg sends Parse (42P05) or Bind
   * (26000) before Execute in one Sync, and PostgreSQL skips everything after an error up to that
   * Sync, so the failed attempt never executed. Callers must not use this inside a transaction.
   */
  async query<R extends pg.QueryResultRow = any>(name: string, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    if (!this.#named) return this.#send<R>(text, values);
    try {
      return await this.#send<R>(text, values, name);
    } catch (err) {
      if (!isSharedConnectionError(err)) throw err;
      this.#switchToUnnamed(name, err);
      return this.#send<R>(text, values);
    }
  }

  /**
   * Sends one statement as a pg Query made from its text, its name and timeout set on it. Handed a
   * config object instead, pg (8.23) copies it property descriptor by property descriptor on every
   * query (cloneQueryConfig: about 2% of a get's CPU), where a text is taken as it is. The pool
   * answers a ready-made query (a Submittable) with the same promise of its result.
   */
  #send<R extends pg.QueryResultRow>(text: string, values: unknown[] | undefined, name?: string): Promise<pg.QueryResult<R>> {
    const query = new pg.Query(text, values) as PgQuery<R> & { name?: string; query_timeout?: number };
    if (name !== undefined) query.name = name;
    if (this.#timeout.query_timeout) query.query_timeout = this.#timeout.query_timeout;
    return this.#pool.query(query) as unknown as Promise<pg.QueryResult<R>>;
  }

  #switchToUnnamed(name: string, err: unknown): void {
    if (!this.#named) return;
    this.#named = false;
    this.#logger.warn(
      { statement: name, code: (err as { code?: unknown }).code, reason: (err as Error).message },
      'PostgreSQL reported a prepared statement missing or already present on its connection: a transaction-mode ' +
        'connection pooler (PgBouncer, a cloud pooler) is probably between this server and PostgreSQL. Switched to ' +
        'unnamed statements for this process; set --database-listen-url (DATABASE_LISTEN_URL) to a direct connection ' +
        'so this is decided at start and watches LISTEN past the pooler',
    );
  }
}

function isSharedConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SHARED_CONNECTION_CODES.has(code);
}
