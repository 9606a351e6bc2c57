import { existsSync } from 'node:fs';
import { loadConfig, type Config } from './config.ts';

/**
 * The settings of this process as every command reads them: flags, over the environment, over
 * `./.env` (see .env.example). Shared by the server, `npm run migrate` and `npm run psql` so that
 * they all find the same database.
 */
export function loadSettings(argv: readonly string[]): Config {
  // process.loadEnvFile leaves variables that are already set alone: the real environment wins.
  if (existsSync('.env')) process.loadEnvFile('.env');
  return loadConfig(argv);
}
