/**
 * The `/livez`, `/readyz` and `/healthz` endpoints as the real server answers them: plain text,
 * `ok` when healthy, the per-check listing with `?verbose` or whenever a check fails.
 */

export type HealthEndpoint = 'livez' | 'readyz' | 'healthz';

export interface HealthCheck {
  readonly name: string;
  /** Resolves when healthy; throws or rejects with the reason otherwise. */
  readonly check: () => Promise<void> | void;
}

export interface HealthQuery {
  /** The `verbose` query parameter is present (any value, even `false`, counts). */
  readonly verbose?: boolean;
  /** Every `exclude` query parameter value. */
  readonly exclude?: readonly string[];
}

export interface HealthResult {
  readonly status: 200 | 500 | 404;
  readonly body: string;
  readonly contentType: 'text/plain; charset=utf-8';
  /** The failed checks with their real reasons, for the log (the body withholds them). */
  readonly failures: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
}

/** The check every endpoint has: always healthy. */
export const pingCheck: HealthCheck = { name: 'ping', check: () => {} };

const TEXT = 'text/plain; charset=utf-8' as const;

/**
 * Runs the checks of one endpoint, in order.
 *
 * - Healthy, not verbose: `ok`.
 * - Healthy, verbose: one line per check (`[+]ping ok`, `[+]etcd excluded: ok`), then
 *   `warn: some health checks cannot be excluded: no matches for "x"` when an excluded name is
 *   unknown, then `<endpoint> check passed`.
 * - Any failure: status 500 and the verbose listing with `[-]<name> failed: reason withheld`
 *   lines, ending in `<endpoint> check failed`.
 * - `onlyCheck` (`/readyz/<name>`): runs that one check; `ok`, or 500
 *   `internal server error: <reason>`; 404 when no check has that name.
 *
 * With no checks at all, `ping` is installed, as upstream does.
 */
export async function runHealthChecks(
  endpoint: HealthEndpoint,
  checks: readonly HealthCheck[],
  query: HealthQuery = {},
  onlyCheck?: string,
): Promise<HealthResult> {
  const all = checks.length > 0 ? checks : [pingCheck];

  if (onlyCheck !== undefined) {
    const one = all.find((c) => c.name === onlyCheck);
    if (!one) return { status: 404, body: '404 page not found\n', contentType: TEXT, failures: [] };
    const reason = await failureOf(one);
    if (reason === undefined) return { status: 200, body: 'ok', contentType: TEXT, failures: [] };
    return {
      status: 500,
      body: `internal server error: ${reason}\n`,
      contentType: TEXT,
      failures: [{ name: one.name, reason }],
    };
  }

  const excluded = new Set(query.exclude ?? []);
  const lines: string[] = [];
  const failures: Array<{ name: string; reason: string }> = [];
  for (const c of all) {
    if (excluded.has(c.name)) {
      excluded.delete(c.name);
      lines.push(`[+]${c.name} excluded: ok\n`);
      continue;
    }
    const reason = await failureOf(c);
    if (reason === undefined) {
      lines.push(`[+]${c.name} ok\n`);
    } else {
      lines.push(`[-]${c.name} failed: reason withheld\n`);
      failures.push({ name: c.name, reason });
    }
  }
  if (excluded.size > 0) {
    const names = [...excluded].sort().map((n) => JSON.stringify(n)).join(',');
    lines.push(`warn: some health checks cannot be excluded: no matches for ${names}\n`);
  }
  const listing = lines.join('');
  if (failures.length > 0) {
    return { status: 500, body: `${listing}${endpoint} check failed\n`, contentType: TEXT, failures };
  }
  if (!query.verbose) return { status: 200, body: 'ok', contentType: TEXT, failures };
  return { status: 200, body: `${listing}${endpoint} check passed\n`, contentType: TEXT, failures };
}

async function failureOf(c: HealthCheck): Promise<string | undefined> {
  try {
    await c.check();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
