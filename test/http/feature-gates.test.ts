/**
 * --feature-gates through the whole start: upstream's start-up errors stop the server, naming a GA
 * gate logs upstream's warning, and the gates set reach the requests (APIResponseCompression off:
 * no gzip even when the client asks for it).
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import pino from 'pino';
import { serveFile, startTestServer } from '../helpers/server.ts';

const logLines: Array<{ level: number; msg: string }> = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});
const t = serveFile(['--feature-gates=VolumeAttributesClass=true,APIResponseCompression=false'], undefined, { logger: pino({ level: 'warn' }, sink) });

describe('start-up', () => {
  test('an unknown gate stops the start', async () => {
    await assert.rejects(startTestServer(['--feature-gates=NoSuchGate=true']), { name: 'StartupError', message: 'unrecognized feature gate: NoSuchGate' });
  });

  test('a locked gate set against its default stops the start', async () => {
    await assert.rejects(startTestServer(['--feature-gates=RecoverVolumeExpansionFailure=false']), {
      name: 'StartupError',
      message: 'cannot set feature gate RecoverVolumeExpansionFailure to false, feature is locked to true',
    });
  });

  test('naming a GA gate logs upstream\'s warning', () => {
    const warning = logLines.find((l) => l.msg === 'Setting GA feature gate VolumeAttributesClass=true. It will be removed in a future release.');
    assert.ok(warning, JSON.stringify(logLines));
    assert.equal(warning.level, 40);
  });
});

describe('requests', () => {
  test('see the gates set: with APIResponseCompression off a large get is not gzipped', async () => {
    // The OpenAPI v2 document is well past the 128 KiB from which answers are gzipped.
    const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
      https
        .get(new URL('/openapi/v2', t.srv.url), { agent: t.srv.adminAgent, headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers));
        })
        .on('error', reject);
    });
    assert.equal(headers['content-encoding'], undefined);
  });
});
