// The databases one run of `npm test` makes for itself and drops at its end: the bootstrapped
// template that test servers start from (test/helpers/server.ts, bootstrappedTemplate) is named
// after the run, so that it holds what this tree's code bootstraps and no other run copies it.
import pg from 'pg';
import { isRunning } from './is-running.mjs';

const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PREFIX = 'pgkube_boot_';

/** This run's id (the runner's pid and start time), given to the test processes as PGKUBE_TEST_RUN. */
export function newRunId() {
  return `${process.pid}_${Date.now().toString(36)}`;
}

/**
 * Drops this run's template, and those of runs whose runner is gone (killed before it could drop
 * them). Problems are reported, not thrown: they must not change the run's result.
 */
export async function dropRunDatabases(runId) {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await admin.connect();
    const { rows } = await admin.query('select datname from pg_database where datname like $1', [`${PREFIX}%`]);
    for (const { datname } of rows) {
      const pid = Number(datname.slice(PREFIX.length).split('_')[0]);
      const mine = datname === `${PREFIX}${runId}` || datname === `${PREFIX}${runId}_building`;
      if (mine || (pid && !isRunning(pid))) await admin.query(`drop database if exists "${datname}" with (force)`);
    }
  } catch (err) {
    process.stderr.write(`test: could not drop the run's template database: ${err.message}\n`);
  } finally {
    await admin.end().catch(() => undefined);
  }
}
