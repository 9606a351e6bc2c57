import pino from 'pino';
import { ConfigError } from './config.ts';
import { loadSettings } from './settings.ts';
import { describeError } from './startup-error.ts';
import { migrateDown, migrateUp, migrationStatus, openDatabase } from './storage/postgres/database.ts';
import { openEmbeddedPostgres } from './storage/postgres/embedded/embedded-postgres.ts';

/**
 * `npm run migrate -- up|down|status [flags]`: the schema commands operators run. Uses the same
 * settings as the server (DATABASE_URL, or the embedded PostgreSQL of --data-dir: the running
 * server's when there is one).
 */
async function main(): Promise<number> {
  const [command, ...flags] = process.argv.slice(2);
  if (!['up', 'down', 'status'].includes(command ?? '')) {
    process.stderr.write('usage: npm run migrate -- up|down|status [--database-url=…] [--data-dir=…]\n');
    return 2;
  }
  let embedded;
  let database;
  try {
    const config = loadSettings(flags);
    const logger = pino({ level: 'warn' });
    embedded = config.databaseUrl ? undefined : await openEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, logger });
    database = await openDatabase({ url: config.databaseUrl || embedded!.url, caFile: config.databaseCaFile, maxConnections: 2, logger });
    if (command === 'status') {
      const { known, unknown } = await migrationStatus(database.db);
      for (const m of known) process.stdout.write(`${m.executedAt ? 'applied' : 'pending'}  ${m.name}${m.executedAt ? `  (${m.executedAt.toISOString()})` : ''}\n`);
      for (const name of unknown) process.stdout.write(`unknown  ${name}  (applied by a newer server)\n`);
      return unknown.length > 0 ? 1 : 0;
    }
    const result = command === 'up' ? await migrateUp(database.db) : await migrateDown(database.db);
    const results = result.results ?? [];
    if (results.length === 0) process.stdout.write(command === 'up' ? 'already up to date\n' : 'nothing to roll back\n');
    for (const r of results) process.stdout.write(`${r.direction === 'Up' ? 'applied' : 'rolled back'}  ${r.migrationName}  ${r.status}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`migrate ${command} failed: ${describeError(err)}\n`);
    return err instanceof ConfigError ? 2 : 1;
  } finally {
    await database?.close();
    await embedded?.stop();
  }
}

main().then((code) => process.exit(code));
