import { spawn } from 'node:child_process';
import pino from 'pino';
import { FLAGS } from './config.ts';
import { loadSettings } from './settings.ts';
import { describeError } from './startup-error.ts';
import { openEmbeddedPostgres } from './storage/postgres/embedded/embedded-postgres.ts';

/** The server's settings that say where the database is; every other argument goes to psql. */
const OWN_FLAGS = new Set(['database-url', 'database-ca-file', 'data-dir', 'embedded-postgres-port']);

function splitArgs(argv: readonly string[]): { own: string[]; psql: string[] } {
  const own: string[] = [];
  const psql: string[] = [];
  for (const arg of argv) {
    const name = /^--([a-z-]+)=/.exec(arg)?.[1];
    if (name && OWN_FLAGS.has(name) && FLAGS.some((f) => f.name === name)) own.push(arg);
    else psql.push(arg);
  }
  return { own, psql };
}

/**
 * `npm run psql [-- psql arguments]`: psql on the server's database, the embedded one included
 * (whose password is generated and kept in the data dir). Uses the running server's PostgreSQL, or
 * starts the embedded one for the session when no server runs.
 */
async function main(): Promise<number> {
  const { own, psql: psqlArgs } = splitArgs(process.argv.slice(2));
  let embedded;
  try {
    const config = loadSettings(own);
    embedded = config.databaseUrl ? undefined : await openEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, logger: pino({ level: 'warn' }) });
    const url = new URL(config.databaseUrl || embedded!.url);
    // --database-ca-file means to the server what sslrootcert means to libpq (a URL's own wins).
    if (config.databaseCaFile && !url.searchParams.has('sslrootcert')) url.searchParams.set('sslrootcert', config.databaseCaFile);
    // The password goes through the environment (only this user can read it), not the command line.
    const password = decodeURIComponent(url.password);
    url.password = '';
    const env = { ...process.env, ...(password ? { PGPASSWORD: password } : {}) };
    // psql handles Ctrl-C itself (it cancels the running query); this process must not die of it.
    const ignore = () => undefined;
    process.on('SIGINT', ignore);
    const child = spawn('psql', [url.toString(), ...psqlArgs], { stdio: 'inherit', env });
    return await new Promise<number>((resolve) => {
      child.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') process.stderr.write('psql is not installed: install the PostgreSQL client (for example "apt-get install postgresql-client")\n');
        else process.stderr.write(`cannot run psql: ${err.message}\n`);
        resolve(127);
      });
      child.once('exit', (code) => {
        process.off('SIGINT', ignore);
        resolve(code ?? 1);
      });
    });
  } catch (err) {
    process.stderr.write(`psql: ${describeError(err)}\n`);
    return 1;
  } finally {
    await embedded?.stop();
  }
}

main().then((code) => process.exit(code));
