import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ConfigError, envExample, FLAGS, loadConfig, parseDuration } from '../../src/config.ts';

test('defaults match the documented first start', () => {
  const c = loadConfig([], {});
  assert.equal(c.securePort, 6443);
  assert.equal(c.bindAddress, '127.0.0.1');
  assert.equal(c.dataDir, './data');
  assert.equal(c.databaseUrl, '');
  assert.equal(c.historyWindowMs, 5 * 60_000);
  assert.equal(c.maxRequestBodyBytes, 3 * 1024 * 1024);
  assert.equal(c.autoMigrate, true);
});

test('every setting of the Config is filled in (no flag maps to a misspelt key)', () => {
  const c = loadConfig([], {}) as unknown as Record<string, unknown>;
  assert.equal(Object.keys(c).length, FLAGS.length);
  for (const [k, v] of Object.entries(c)) assert.notEqual(v, undefined, k);
  assert.equal(c.minRequestTimeout, 1800);
});

test('flags win over the environment, in both --name=value and --name value forms', () => {
  const c = loadConfig(['--secure-port', '7000', '--bind-address=0.0.0.0', '--auto-migrate=false'], { SECURE_PORT: '6000', DATA_DIR: '/srv' });
  assert.equal(c.securePort, 7000);
  assert.equal(c.bindAddress, '0.0.0.0');
  assert.equal(c.dataDir, '/srv');
  assert.equal(c.autoMigrate, false);
});

test('lists and durations parse', () => {
  const c = loadConfig(['--runtime-config=events.k8s.io/v1=false, api/all=true', '--history-window=1m30s'], {});
  assert.deepEqual(c.runtimeConfig, ['events.k8s.io/v1=false', 'api/all=true']);
  assert.equal(c.historyWindowMs, 90_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('2h'), 7_200_000);
  assert.throws(() => parseDuration('5 minutes'), ConfigError);
});

test('unknown flags and bad values stop start-up with a clear message', () => {
  assert.throws(() => loadConfig(['--no-such-flag=1'], {}), /unknown flag: --no-such-flag/);
  assert.throws(() => loadConfig(['--secure-port=abc'], {}), /--secure-port: must be a non-negative integer|invalid value "abc" for --secure-port/);
  assert.throws(() => loadConfig(['--authorization-mode=Magic'], {}), /authorization-mode "Magic" is not a valid mode/);
  assert.throws(() => loadConfig(['--auto-migrate=maybe'], {}), /must be true or false/);
});

test('.env.example lists every setting and the README documents every flag', () => {
  assert.equal(readFileSync(new URL('../../.env.example', import.meta.url), 'utf8'), envExample());
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const f of FLAGS) {
    assert.ok(readme.includes(`\`--${f.name}\``), `README documents --${f.name}`);
    assert.ok(readme.includes(`\`${f.env}\``), `README documents ${f.env}`);
  }
});

test('the LISTEN URL and the database CA come from flags or the environment; a LISTEN URL needs a database URL', () => {
  const c = loadConfig(['--database-ca-file=/etc/pg/ca.pem'], { DATABASE_URL: 'postgres://pooler/db', DATABASE_LISTEN_URL: 'postgres://direct/db' });
  assert.equal(c.databaseListenUrl, 'postgres://direct/db');
  assert.equal(c.databaseCaFile, '/etc/pg/ca.pem');
  assert.equal(loadConfig([], {}).databaseListenUrl, '');
  assert.throws(() => loadConfig(['--database-listen-url=postgres://direct/db'], {}), /--database-listen-url needs --database-url/);
});

test('admission plugin flags are checked with upstream wording', () => {
  assert.throws(() => loadConfig(['--enable-admission-plugins=NoSuchPlugin'], {}), {
    name: 'ConfigError',
    message: 'enable-admission-plugins plugin "NoSuchPlugin" is unknown',
  });
  assert.throws(() => loadConfig(['--disable-admission-plugins=NoSuchPlugin'], {}), {
    message: 'disable-admission-plugins plugin "NoSuchPlugin" is unknown',
  });
  assert.throws(() => loadConfig(['--enable-admission-plugins=AlwaysDeny', '--disable-admission-plugins=AlwaysDeny'], {}), {
    message: '[AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped',
  });
  // An upstream plugin this server does not have cannot be turned on (it would look enforced), but may be turned off.
  assert.throws(() => loadConfig(['--enable-admission-plugins=NodeRestriction'], {}), {
    message: 'enable-admission-plugins plugin "NodeRestriction" is not implemented by this server yet',
  });
  const c = loadConfig(['--disable-admission-plugins=NodeRestriction,ResourceQuota', '--enable-admission-plugins=AlwaysDeny'], {});
  assert.deepEqual(c.enableAdmissionPlugins, ['AlwaysDeny']);
});

test('--authorization-config excludes --authorization-mode and the --authorization-webhook-* flags', () => {
  const message = /--authorization-config can not be specified when --authorization-mode or --authorization-webhook-\* flags are defined$/;
  assert.equal(loadConfig(['--authorization-config=/etc/authz.yaml'], {}).authorizationConfig, '/etc/authz.yaml');
  for (const extra of [
    '--authorization-mode=RBAC',
    '--authorization-webhook-config-file=/etc/webhook.kubeconfig',
    '--authorization-webhook-version=v1',
    '--authorization-webhook-cache-authorized-ttl=1m',
    '--authorization-webhook-cache-unauthorized-ttl=1s',
  ]) {
    assert.throws(() => loadConfig(['--authorization-config=/etc/authz.yaml', extra], {}), message, extra);
  }
  assert.throws(() => loadConfig(['--authorization-mode=Webhook'], {}), /Webhook's authorization config file not passed/);
});

test('--controllers with a name upstream does not know is a configuration error', () => {
  assert.throws(() => loadConfig(['--controllers=*,foo,-bar'], {}), (err: Error) => {
    assert.equal(err.message, `--controllers: validation failed for '--controllers': ["foo" is not in the list of known controllers, "bar" is not in the list of known controllers]`);
    return true;
  });
  assert.deepEqual(loadConfig(['--controllers=*,-tokencleaner,bootstrapsigner'], {}).controllers, ['*', '-tokencleaner', 'bootstrapsigner']);
});
