import { loadConfig } from './config.ts';
import { migrateDown, migrateUp, migrationStatus, openDatabase } from './storage/postgres/database.ts';
import { startEmbeddedPostgres } from './storage/postgres/embedded.ts';
import pino from 'pino';

/**
 * `npm run migrate -- up|down|status [flags]`: the schema commands operators run. Uses the same
 * settings as the server (DATABASE_URL, or the embedded PostgreSQL of --data-dir).
 */
async function main(): Promise<number> {
  const [command, ...flags] = process.argv.slice(2);
  if (!['up', 'down', 'status'].includes(command ?? '')) {
    process.stderr.write('usage: npm run migrate -- up|down|status [--database-url=…] [--data-dir=…]\n');
    return 2;
  }
  const config = loadConfig(flags);
  const logger = pino({ level: 'warn' });
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort, logger);
  let database;
  try {
    database = await openDatabase({ url: config.databaseUrl || embedded!.url, caFile: config.databaseCaFile, maxConnections: 2, logger });
  } catch (err) {
    process.stderr.write(`migrate ${command} failed: ${(err as Error).message}\n`);
    await embedded?.stop();
    return 1;
  }
  try {
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
    process.stderr.write(`migrate ${command} failed: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await database.close();
    await embedded?.stop();
  }
}

main().then((code) => process.exit(code));
