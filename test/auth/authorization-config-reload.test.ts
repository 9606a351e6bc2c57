import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import pino from 'pino';
import type { Attributes, Authorizer } from '../../src/auth/authz/authorizer.ts';
import { ReloadingAuthorizer } from '../../src/auth/authz/config/reloading-authorizer.ts';
import { parseRequestInfo } from '../../src/api/request-info.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-authz-reload-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'authz.yaml');
const logger = pino({ level: 'silent' });
const attrs: Attributes = { user: { name: 'alice', groups: [] }, request: parseRequestInfo('GET', '/api/v1/namespaces', new URLSearchParams()) };
const write = (types: string[]) =>
  writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n${types.map((t) => `- {type: ${t}, name: ${t.toLowerCase()}}`).join('\n')}\n`);

test('RBAC and Node come from the factories, each made once across reloads; the order is the file\'s', async () => {
  const made: string[] = [];
  const stub = (name: string, decision: 'allow' | 'deny' | 'noOpinion'): (() => Authorizer) => () => {
    made.push(name);
    return { name, authorize: () => ({ decision, reason: name }) };
  };
  write(['Node', 'RBAC']);
  const authz = await ReloadingAuthorizer.create({ file, logger, factories: { Node: stub('node', 'noOpinion'), RBAC: stub('rbac', 'allow') } });
  try {
    assert.deepEqual(await authz.authorize(attrs), { decision: 'allow', reason: 'rbac' });
    write(['RBAC', 'Node']);
    await authz.reload();
    assert.deepEqual(await authz.authorize(attrs), { decision: 'allow', reason: 'rbac' });
    write(['Node']);
    await authz.reload();
    assert.deepEqual(await authz.authorize(attrs), { decision: 'noOpinion', reason: 'node' });
    assert.deepEqual(made, ['node', 'rbac'], 'each factory ran once');
    // A broken file keeps the chain.
    writeFileSync(file, 'kind: AuthorizationConfiguration\napiVersion: apiserver.config.k8s.io/v1\nauthorizers: []\n');
    await authz.reload();
    assert.deepEqual(await authz.authorize(attrs), { decision: 'noOpinion', reason: 'node' });
  } finally {
    authz.stop();
  }
});

test('a type without a factory, or a broken file, is a start error', async () => {
  write(['RBAC']);
  await assert.rejects(ReloadingAuthorizer.create({ file, logger, factories: {} }), /authorizer type RBAC is not available/);
  writeFileSync(file, 'kind: AuthorizationConfiguration\napiVersion: apiserver.config.k8s.io/v1\nauthorizers: []\n');
  await assert.rejects(ReloadingAuthorizer.create({ file, logger, factories: {} }), { message: 'authorizers: Required value: at least one authorization mode must be defined' });
});
