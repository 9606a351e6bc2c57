import { existsSync } from 'node:fs';
import pino from 'pino';
import { ConfigError, loadConfig } from './config.ts';
import { startServer } from './server.ts';

/** Flags and environment → a running server; SIGTERM/SIGINT stop it gracefully. */
async function main(): Promise<void> {
  // Settings may also live in ./.env (see .env.example); real environment variables win.
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config;
  try {
    config = loadConfig(process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = pino({ level: config.logLevel });
  let server;
  try {
    server = await startServer(config, logger);
  } catch (err) {
    logger.fatal({ err }, `cannot start: ${(err as Error).message}`);
    process.exit(1);
  }
  const running = server;
  let signals = 0;
  const shutdown = (signal: string) => {
    signals++;
    if (signals > 1) process.exit(1);
    logger.info({ signal }, 'shutting down');
    running.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
