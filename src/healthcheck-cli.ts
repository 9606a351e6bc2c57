import https from 'node:https';
import { loadSettings } from './settings.ts';

/**
 * `node dist/src/healthcheck-cli.js`: exits 0 when this machine's server answers /readyz with 200,
 * else 1 (the container image's HEALTHCHECK). It reads the same settings as the server to find the
 * port; the serving certificate is not verified (a loopback probe that sends nothing secret, and works
 * with certificates from --tls-cert-file as with the generated ones).
 */
function probe(): Promise<number> {
  const config = loadSettings([]);
  const anyAddress = config.bindAddress === '0.0.0.0' || config.bindAddress === '::' || config.bindAddress === '';
  const host = anyAddress ? '127.0.0.1' : config.bindAddress;
  return new Promise((resolve) => {
    const req = https.get({ host, port: config.securePort, path: '/readyz', rejectUnauthorized: false, timeout: 3000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? 0 : 1);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => {
      process.stderr.write(`readyz: ${err.message}\n`);
      resolve(1);
    });
  });
}

probe().then((code) => process.exit(code));
