import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postgresLogLevel } from '../../src/storage/postgres/embedded/postmaster.ts';

test("the embedded PostgreSQL's FATAL and PANIC lines are warnings, but not the end of a session at a fast shutdown", () => {
  assert.equal(postgresLogLevel('2026-11-28 06:14:17.711 UTC [32179] FATAL:  terminating connection due to administrator command'), 'info');
  assert.equal(postgresLogLevel('2026-11-28 06:14:17.711 UTC [32179] FATAL:  password authentication failed for user "postgres"'), 'warn');
  assert.equal(postgresLogLevel('2026-11-28 06:14:17.711 UTC [1] PANIC:  could not write to file "pg_wal/xlogtemp.1": No space left on device'), 'warn');
  assert.equal(postgresLogLevel('2026-11-28 06:14:17.711 UTC [1] LOG:  database system is ready to accept connections'), 'debug');
});
