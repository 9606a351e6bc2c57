import cluster from 'node:cluster';
import pino from 'pino';
import { ConfigError } from './config.ts';
import { startServer } from './server.ts';
import { loadSettings } from './settings.ts';
import { StartupError, describeError } from './startup-error.ts';
import { onStopSignals } from './stop-signals.ts';
import { runPrimary } from './startup/workers/primary.ts';
import { applyWorkerSettings, reportServing } from './startup/workers/worker.ts';

/** Flags and environment → a running server; SIGTERM/SIGINT stop it gracefully. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadSettings(process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = pino({ level: config.logLevel });
  // --workers > 1: this process only starts and watches the workers (startup/workers/primary.ts).
  if (cluster.isPrimary && config.workers > 1) return runPrimary(config, logger);
  if (cluster.isWorker) applyWorkerSettings(config);
  // A signal during start-up is acted on once the server is up (a failed start cleans up by itself).
  let stopRequested = false;
  let stop = () => {
    stopRequested = true;
  };
  onStopSignals({ logger, graceful: () => stop(), immediate: () => process.exit(1) });
  let server;
  try {
    server = await startServer(config, logger);
  } catch (err) {
    if (err instanceof StartupError) logger.fatal(`cannot start: ${err.message}`);
    else logger.fatal({ err }, `cannot start: ${describeError(err)}`);
    process.exit(1);
  }
  const running = server;
  if (cluster.isWorker) reportServing(running.url);
  stop = () => {
    running.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  if (stopRequested) stop();
}

void main();
