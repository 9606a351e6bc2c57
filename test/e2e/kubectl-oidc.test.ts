/**
 * kubectl with an ID token from a real OpenID provider: `kubectl --token=<id token> auth whoami`
 * shows the user the server mapped, for the --oidc-* flags and for --authentication-config, once per
 * kubectl version. The kubeconfig has the cluster only, so the token is the one credential.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import { jwtFor, writeAuthenticationConfig } from '../helpers/authentication-config-file.ts';
import { KUBECTL_VERSIONS, kubectl, skipReason } from '../helpers/kubectl.ts';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { untilAuthenticated } from '../helpers/whoami.ts';
import { ok } from './setup.ts';

/** A server trusting the provider one way or the other, and a kubeconfig without credentials for it. */
function oidcServer(flags: (idp: OidcProvider, dir: string) => Promise<string[]>) {
  const ctx = {} as { idp: OidcProvider; srv: TestServer; dir: string; kubeconfig: string };
  before(async () => {
    ctx.idp = await startOidcProvider();
    ctx.dir = await mkdtemp(path.join(tmpdir(), 'pgkube-kubectl-oidc-'));
    ctx.srv = await startTestServer(await flags(ctx.idp, ctx.dir));
    ctx.kubeconfig = path.join(ctx.dir, 'kubeconfig');
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'pgkube', cluster: { server: ctx.srv.url, 'certificate-authority-data': Buffer.from(ctx.srv.ca).toString('base64') } }],
      users: [{ name: 'oidc', user: {} }],
      contexts: [{ name: 'oidc', context: { cluster: 'pgkube', user: 'oidc' } }],
      'current-context': 'oidc',
    };
    await writeFile(ctx.kubeconfig, yaml.dump(config));
    await untilAuthenticated(ctx.srv, await ctx.idp.idToken({ sub: 'warm-up', groups: [] }));
  });
  after(async () => {
    await ctx.srv?.stop();
    await ctx.idp?.close();
    if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
  });
  return ctx;
}

/**
 * The user kubectl is told it is. kubectl before 1.28 asks `auth whoami` of SelfSubjectReview
 * v1alpha1 or v1beta1, which this server does not serve (only v1): those versions create the v1
 * review themselves, which is what whoami does (without client-side validation, which would read
 * the CRDs an OIDC user may not list).
 */
async function whoamiWith(version: string, ctx: { kubeconfig: string; dir: string }, token: string): Promise<Record<string, unknown>> {
  const k = kubectl(version, ctx.kubeconfig, path.join(ctx.dir, `cache-${version}`));
  const whoamiServed = Number(version.split('.')[1]) >= 28;
  const out = whoamiServed
    ? ok(await k.run([`--token=${token}`, 'auth', 'whoami', '-o', 'json']))
    : ok(await k.run([`--token=${token}`, 'create', '--validate=false', '-o', 'json', '-f', '-'], { input: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }) }));
  return JSON.parse(out).status.userInfo;
}

describe('kubectl auth whoami with an ID token: --oidc-* flags', () => {
  const ctx = oidcServer(async (idp) => [
    `--oidc-issuer-url=${idp.issuer}`,
    `--oidc-client-id=${idp.clientId}`,
    `--oidc-ca-file=${idp.caFile}`,
    '--oidc-username-claim=email',
    '--oidc-groups-claim=groups',
    '--oidc-groups-prefix=oidc:',
  ]);
  for (const version of KUBECTL_VERSIONS) {
    it(`kubectl ${version} shows the email and the prefixed groups`, { skip: skipReason(version) }, async () => {
      const token = await ctx.idp.idToken({ sub: 'u-1', email: 'alice@example.org', email_verified: true, groups: ['dev'] });
      assert.deepEqual(await whoamiWith(version, ctx, token), { username: 'alice@example.org', groups: ['oidc:dev', 'system:authenticated'] });
    });
  }
});

describe('kubectl auth whoami with an ID token: --authentication-config', () => {
  const ctx = oidcServer(async (idp, dir) => {
    const file = path.join(dir, 'authn.yaml');
    writeAuthenticationConfig(file, {
      jwt: [
        jwtFor(idp, {
          claimMappings: {
            username: { expression: "'oidc:' + claims.sub" },
            groups: { claim: 'groups', prefix: 'team:' },
            uid: { claim: 'sub' },
            extra: [{ key: 'example.org/department', valueExpression: 'claims.department' }],
          },
        }),
      ],
    });
    return [`--authentication-config=${file}`];
  });
  for (const version of KUBECTL_VERSIONS) {
    it(`kubectl ${version} shows the mapped username, uid, groups and extra`, { skip: skipReason(version) }, async () => {
      const token = await ctx.idp.idToken({ sub: 'bob', groups: ['ops'], department: 'platform' });
      const user = await whoamiWith(version, ctx, token);
      // Only the key of extra: kubectl reads the review as protobuf, and this server's protobuf
      // encoding of ExtraValue (a cast of []string) loses the values; the values are checked over
      // JSON in test/auth/authentication-config.test.ts.
      assert.deepEqual(Object.keys((user.extra ?? {}) as object), ['example.org/department']);
      delete user.extra;
      assert.deepEqual(user, { username: 'oidc:bob', uid: 'bob', groups: ['team:ops', 'system:authenticated'] });
    });
  }
});
