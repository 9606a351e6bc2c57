/**
 * Authentication and authorization end to end with the real kubectl binaries, as on Kubernetes
 * 1.34: the admin's client certificate, service account tokens from `kubectl create token`, a
 * --token-auth-file user, a bootstrap token, RBAC grants made with `kubectl create role/rolebinding`,
 * escalation prevention, impersonation, a real webhook authorizer after RBAC in the chain, and
 * anonymous requests. One server (all the flags at once) for the file; each kubectl version works
 * in a namespace and with identities of its own.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import { startFakeWebhook, type Answer, type FakeWebhook } from '../auth/webhook-authz-helper.ts';
import { client } from '../helpers/http.ts';
import { KUBECTL_VERSIONS, kubectl, skipReason, type Kubectl, type KubectlResult } from '../helpers/kubectl.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ok } from './setup.ts';

const STATIC_TOKEN = 'e2e-static-token-jane';
const WEBHOOK_TOKEN = 'e2e-static-token-webhook';
const TOKEN_FILE = `${STATIC_TOKEN},jane,uid-jane,"devs,qa"\n${WEBHOOK_TOKEN},webhook-user,uid-webhook-user,webhook-group\n`;
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The fake webhook: webhook-user may read configmaps, is denied secrets; anything else is no opinion. */
function webhookAnswer(review: any): Answer {
  const spec = review.spec ?? {};
  const attrs = spec.resourceAttributes ?? {};
  if (spec.user === 'webhook-user' && attrs.resource === 'configmaps' && ['get', 'list', 'watch'].includes(attrs.verb)) {
    return { status: { allowed: true, reason: 'the e2e webhook lets webhook-user read configmaps' } };
  }
  if (spec.user === 'webhook-user' && attrs.resource === 'secrets') {
    return { status: { allowed: false, denied: true, reason: 'the e2e webhook keeps secrets from webhook-user' } };
  }
  return { status: { allowed: false } };
}

const ctx = {} as {
  dir: string;
  srv: TestServer;
  webhook: FakeWebhook;
  /** A kubeconfig with the cluster only: every kubectl run with it passes --token. */
  noCreds: string;
  admin: { name: string; groups: string[]; credentialId: string };
};

before(async () => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'pgkube-kubectl-auth-'));
  const tokenFile = path.join(ctx.dir, 'tokens.csv');
  await writeFile(tokenFile, TOKEN_FILE);
  ctx.webhook = await startFakeWebhook(ctx.dir, 'e2e-authz');
  ctx.webhook.answer = webhookAnswer;
  ctx.srv = await startTestServer([
    `--token-auth-file=${tokenFile}`,
    '--enable-bootstrap-token-auth',
    '--authorization-mode=Node,RBAC,Webhook',
    `--authorization-webhook-config-file=${ctx.webhook.kubeconfig}`,
    '--authorization-webhook-version=v1',
  ]);
  ctx.noCreds = await writeKubeconfig('no-credentials', {});
  const cert = new X509Certificate(await readFile(path.join(ctx.srv.dataDir, 'pki', 'admin.crt')));
  const subject = cert.subject.split('\n');
  ctx.admin = {
    name: subject.find((l) => l.startsWith('CN='))!.slice(3),
    groups: subject.filter((l) => l.startsWith('O=')).map((l) => l.slice(2)),
    credentialId: `X509SHA256=${cert.fingerprint256.replaceAll(':', '').toLowerCase()}`,
  };
});

after(async () => {
  await ctx.srv?.stop();
  await ctx.webhook?.close();
  if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
});

/** Writes a kubeconfig for the server with `user` as its credentials and returns its path. */
async function writeKubeconfig(name: string, user: Record<string, unknown>): Promise<string> {
  const file = path.join(ctx.dir, `${name}.kubeconfig`);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'pgkube', cluster: { server: ctx.srv.url, 'certificate-authority-data': Buffer.from(ctx.srv.ca).toString('base64') } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: 'pgkube', user: name } }],
    'current-context': name,
  };
  await writeFile(file, yaml.dump(config));
  return file;
}

type UserInfo = { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };

/**
 * The user the server says kubectl is. kubectl 1.27 asks SelfSubjectReview v1alpha1/v1beta1 for
 * `auth whoami`, which Kubernetes 1.34 does not serve by default (nor this server): it creates the
 * v1 review itself instead, which is what whoami does.
 */
async function whoami(k: Kubectl, args: string[] = []): Promise<UserInfo> {
  const out = whoamiServed(k.version)
    ? ok(await k.run([...args, 'auth', 'whoami', '-o', 'json']))
    : ok(await k.run([...args, 'create', '--validate=false', '-o', 'json', '-f', '-'], { input: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }) }));
  const review = JSON.parse(out);
  assert.equal(review.kind, 'SelfSubjectReview', out);
  assert.equal(review.apiVersion, 'authentication.k8s.io/v1', out);
  return review.status.userInfo;
}

function whoamiServed(version: string): boolean {
  return Number(version.split('.')[1]) >= 28;
}

/** Asserts kubectl failed with exit code 1 and the given stderr (exactly, or matching). */
function fails(result: KubectlResult, stderr: string | RegExp): void {
  assert.equal(result.code, 1, `kubectl exited ${result.code}${result.timedOut ? ' (timed out)' : ''}, expected 1:\n${result.stderr}\n${result.stdout}`);
  if (typeof stderr === 'string') assert.equal(result.stderr, stderr);
  else assert.match(result.stderr, stderr);
}

/** Runs kubectl until it exits 0 (RBAC objects reach the authorizer through a watch), at most `timeoutMs`. */
async function eventuallyOk(k: Kubectl, args: string[], timeoutMs = 5_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await k.run(args);
    if (result.code === 0 || Date.now() > deadline) return ok(result);
    await sleep(100);
  }
}

/** The decoded header and payload of a JWT. */
function decodeJwt(token: string): { header: any; payload: any } {
  const parts = token.split('.');
  assert.equal(parts.length, 3, `not a JWT: ${token}`);
  const part = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  return { header: part(parts[0]!), payload: part(parts[1]!) };
}

/** `kubectl auth can-i --list` cut at its header's columns (the names hold spaces). */
function parseRules(output: string): { resource: string; nonResourceURLs: string; resourceNames: string; verbs: string }[] {
  const [header, ...lines] = output.split('\n').filter((l) => l.trim() !== '');
  assert.ok(header, 'no output');
  const starts = ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'].map((h) => header.indexOf(h));
  assert.ok(starts.every((s) => s >= 0), `unexpected header: ${header}`);
  const cell = (line: string, i: number) => line.slice(starts[i], starts[i + 1]).trim();
  return lines.map((l) => ({ resource: cell(l, 0), nonResourceURLs: cell(l, 1), resourceNames: cell(l, 2), verbs: cell(l, 3) }));
}

/** Webhook reviews about `user` (and, if given, resource attributes including these). */
function reviewsFor(user: string, attrs: Record<string, string> = {}): any[] {
  return ctx.webhook.received.filter(
    (r) => r.spec?.user === user && Object.entries(attrs).every(([key, value]) => r.spec.resourceAttributes?.[key] === value),
  );
}

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: authentication and RBAC`, { skip: skipReason(version) }, () => {
    const v = version.replace('.', '');
    const ns = `auth-e2e-${v}`;
    const sa = 'reader';
    const saUser = `system:serviceaccount:${ns}:${sa}`;
    let cacheDir = '';
    /** kubectl as the admin (client certificate, system:masters). */
    const admin = (): Kubectl => kubectl(version, ctx.srv.kubeconfig, cacheDir);
    /** kubectl with no credentials of its own: pass --token. */
    const bare = (): Kubectl => kubectl(version, ctx.noCreds, cacheDir);
    let saToken = '';

    before(async () => {
      cacheDir = await mkdtemp(path.join(ctx.dir, `cache-${v}-`));
      ok(await admin().run(['create', 'namespace', ns]));
    });

    it('auth whoami as the admin: the certificate\'s user and groups, system:authenticated, the credential id', async () => {
      assert.deepEqual(ctx.admin.groups, ['system:masters']);
      const user = await whoami(admin());
      assert.deepEqual(user, {
        username: ctx.admin.name,
        groups: ['system:masters', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [ctx.admin.credentialId] },
      });
      if (!whoamiServed(version)) {
        // What kubectl 1.27 says of a 1.34 cluster: neither v1alpha1 nor v1beta1 is served.
        fails(await admin().run(['auth', 'whoami']), /the selfsubjectreviews API is not enabled in the cluster/);
      }
    });

    it('auth can-i: the admin may create pods; a service account may not (exit 1); --list shows basic-user and discovery rules', async () => {
      assert.equal(ok(await admin().run(['auth', 'can-i', 'create', 'pods'])), 'yes\n');
      const denied = await admin().run(['auth', 'can-i', 'create', 'pods', `--as=system:serviceaccount:${ns}:nobody`]);
      assert.equal(denied.code, 1, denied.stderr);
      assert.equal(denied.stdout, 'no\n');

      const rows = parseRules(ok(await admin().run(['auth', 'can-i', '--list', '-n', ns, `--as=system:serviceaccount:${ns}:nobody`])));
      const resources = rows.filter((r) => r.resource !== '');
      // system:basic-user: the self reviews, and nothing else.
      assert.deepEqual(resources, [
        { resource: 'selfsubjectreviews.authentication.k8s.io', nonResourceURLs: '[]', resourceNames: '[]', verbs: '[create]' },
        { resource: 'selfsubjectaccessreviews.authorization.k8s.io', nonResourceURLs: '[]', resourceNames: '[]', verbs: '[create]' },
        { resource: 'selfsubjectrulesreviews.authorization.k8s.io', nonResourceURLs: '[]', resourceNames: '[]', verbs: '[create]' },
      ]);
      // The non-resource URLs of system:discovery and system:public-info-viewer (both bound to
      // system:authenticated; health and version are in both, so listed twice, as upstream's table
      // shows them) and of system:service-account-issuer-discovery (bound to system:serviceaccounts).
      const urls = rows.filter((r) => r.resource === '').map((r) => `${r.nonResourceURLs} ${r.resourceNames} ${r.verbs}`);
      const health = ['/healthz', '/livez', '/readyz', '/version', '/version/'];
      const expected = [
        ...['/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*', ...health],
        ...health,
        ...['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'],
      ];
      assert.deepEqual([...urls].sort(), expected.map((u) => `[${u}] [] [get]`).sort());
    });

    it('create serviceaccount and create token: a JWT naming the service account, for the API audience, for an hour', async () => {
      assert.equal(ok(await admin().run(['-n', ns, 'create', 'serviceaccount', sa])), `serviceaccount/${sa} created\n`);
      const uid = ok(await admin().run(['-n', ns, 'get', 'serviceaccount', sa, '-o', 'jsonpath={.metadata.uid}']));
      assert.match(uid, /^[0-9a-f-]{36}$/);
      const out = ok(await admin().run(['-n', ns, 'create', 'token', sa]));
      // kubectl prints the token alone, without a newline.
      assert.match(out, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      saToken = out.trim();
      const { header, payload } = decodeJwt(saToken);
      assert.equal(header.alg, 'RS256');
      assert.equal(typeof header.kid, 'string');
      assert.equal(payload.iss, ISSUER);
      assert.deepEqual(payload.aud, [ISSUER]);
      assert.equal(payload.sub, saUser);
      assert.deepEqual(payload['kubernetes.io'], { namespace: ns, serviceaccount: { name: sa, uid } });
      assert.equal(payload.exp - payload.iat, 3600, JSON.stringify(payload));
      assert.ok(Math.abs(payload.iat - Date.now() / 1000) < 60, `iat ${payload.iat}`);
      assert.ok(payload.nbf <= payload.iat);
      assert.match(payload.jti, /^[0-9a-f-]{36}$/);

      const user = await whoami(bare(), [`--token=${saToken}`]);
      assert.deepEqual(user, {
        username: saUser,
        uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${payload.jti}`] },
      });
    });

    it('the service account token is Forbidden to list pods until the admin creates a Role and a RoleBinding', async () => {
      assert.ok(saToken, 'the token test ran');
      const asSa = kubectl(version, await writeKubeconfig(`sa-${v}`, { token: saToken }), cacheDir);
      fails(
        await asSa.run(['-n', ns, 'get', 'pods']),
        `Error from server (Forbidden): pods is forbidden: User "${saUser}" cannot list resource "pods" in API group "" in the namespace "${ns}"\n`,
      );
      assert.equal(ok(await admin().run(['-n', ns, 'create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods'])), 'role.rbac.authorization.k8s.io/pod-reader created\n');
      assert.equal(
        ok(await admin().run(['-n', ns, 'create', 'rolebinding', 'pod-reader', '--role=pod-reader', `--serviceaccount=${ns}:${sa}`])),
        'rolebinding.rbac.authorization.k8s.io/pod-reader created\n',
      );
      const binding = JSON.parse(ok(await admin().run(['-n', ns, 'get', 'rolebinding', 'pod-reader', '-o', 'json'])));
      assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' });
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: sa, namespace: ns }]);

      const listed = await eventuallyOk(asSa, ['-n', ns, 'get', 'pods']);
      assert.equal(listed, '');
      // RBAC allowed it, so the webhook (after RBAC in the chain) was not asked; it was asked before the grant.
      const asked = reviewsFor(saUser, { namespace: ns, verb: 'list', resource: 'pods' }).length;
      assert.equal(ok(await asSa.run(['-n', ns, 'get', 'pods', '-o', 'name'])), '');
      assert.equal(reviewsFor(saUser, { namespace: ns, verb: 'list', resource: 'pods' }).length, asked);
      assert.ok(asked >= 1, 'the forbidden list reached the webhook');
      assert.equal(ok(await asSa.run(['-n', ns, 'auth', 'can-i', 'list', 'pods'])), 'yes\n');
      const write = await asSa.run(['-n', ns, 'auth', 'can-i', 'delete', 'pods']);
      assert.equal(write.code, 1);
      assert.equal(write.stdout, 'no\n');
    });

    it('impersonation: --as=someone is Forbidden naming someone; --as the bound service account may list pods; the service account may not impersonate', async () => {
      fails(
        await admin().run(['-n', ns, 'get', 'pods', '--as=someone']),
        `Error from server (Forbidden): pods is forbidden: User "someone" cannot list resource "pods" in API group "" in the namespace "${ns}"\n`,
      );
      assert.equal(ok(await admin().run(['-n', ns, 'get', 'pods', `--as=${saUser}`, '-o', 'name'])), '');
      fails(
        await admin().run(['-n', ns, 'get', 'secrets', `--as=${saUser}`]),
        `Error from server (Forbidden): secrets is forbidden: User "${saUser}" cannot list resource "secrets" in API group "" in the namespace "${ns}"\n`,
      );
      fails(
        await bare().run([`--token=${saToken}`, '-n', ns, 'get', 'pods', '--as=someone']),
        `Error from server (Forbidden): users "someone" is forbidden: User "${saUser}" cannot impersonate resource "users" in API group "" at the cluster scope\n`,
      );
    });

    it('a --token-auth-file user: whoami shows its user, uid and groups, can-i answers; a wrong token is Unauthorized, never anonymous', async () => {
      assert.deepEqual(await whoami(bare(), [`--token=${STATIC_TOKEN}`]), { username: 'jane', uid: 'uid-jane', groups: ['devs', 'qa', 'system:authenticated'] });
      assert.equal(ok(await bare().run([`--token=${STATIC_TOKEN}`, 'auth', 'can-i', 'create', 'selfsubjectaccessreviews.authorization.k8s.io'])), 'yes\n');
      const no = await bare().run([`--token=${STATIC_TOKEN}`, '-n', ns, 'auth', 'can-i', 'list', 'pods']);
      assert.equal(no.code, 1, no.stderr);
      assert.equal(no.stdout, 'no\n');
      fails(
        await bare().run([`--token=${STATIC_TOKEN}`, '-n', ns, 'get', 'pods']),
        `Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "${ns}"\n`,
      );

      // With discovery cached (the admin's runs filled the cache), kubectl shows the server's Status message.
      for (const args of [['-n', ns, 'get', 'pods'], ['auth', 'can-i', 'list', 'pods']]) {
        fails(await bare().run([`--token=${STATIC_TOKEN}x`, ...args]), 'error: You must be logged in to the server (Unauthorized)\n');
      }
      // `version` reads the raw body, so kubectl words the 401 itself.
      const version = await bare().run([`--token=${STATIC_TOKEN}x`, 'version', '-o', 'json']);
      fails(version, 'error: You must be logged in to the server (the server has asked for the client to provide credentials)\n');
      assert.equal(JSON.parse(version.stdout).serverVersion, undefined);
      const raw = await client(ctx.srv.url, ctx.srv.anonymousAgent).get(`/api/v1/namespaces/${ns}/pods`, { Authorization: `Bearer ${STATIC_TOKEN}x` });
      assert.equal(raw.status, 401, raw.text);
      assert.deepEqual(JSON.parse(raw.text), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    });

    it('a bootstrap token authenticates as system:bootstrap:<id> in system:bootstrappers and its extra groups', async () => {
      const id = `e2e${v}`;
      const secret = '0123456789abcdef';
      const token = `${id}.${secret}`;
      const unauthorized = 'error: You must be logged in to the server (Unauthorized)\n';
      fails(await bare().run([`--token=${token}`, '-n', ns, 'get', 'pods']), unauthorized);
      const manifest = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
        type: 'bootstrap.kubernetes.io/token',
        stringData: {
          'token-id': id,
          'token-secret': secret,
          'usage-bootstrap-authentication': 'true',
          'auth-extra-groups': 'system:bootstrappers:e2e,system:bootstrappers:kubeadm:default-node-token',
        },
      };
      assert.equal(ok(await admin().run(['create', '-f', '-'], { input: JSON.stringify(manifest) })), `secret/bootstrap-token-${id} created\n`);
      // The Secret reaches the authenticator through an informer.
      await eventuallyOk(bare(), [`--token=${token}`, 'auth', 'can-i', 'create', 'selfsubjectreviews.authentication.k8s.io']);
      assert.deepEqual(await whoami(bare(), [`--token=${token}`]), {
        username: `system:bootstrap:${id}`,
        groups: ['system:bootstrappers', 'system:bootstrappers:e2e', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
      });
      fails(await bare().run([`--token=${id}.fedcba9876543210`, '-n', ns, 'get', 'pods']), unauthorized);
      fails(
        await bare().run([`--token=${token}`, '-n', ns, 'get', 'pods']),
        `Error from server (Forbidden): pods is forbidden: User "system:bootstrap:${id}" cannot list resource "pods" in API group "" in the namespace "${ns}"\n`,
      );
    });

    it('the webhook authorizer (after RBAC) lets webhook-user list configmaps and denies it secrets, with its reason; it got v1 SubjectAccessReviews', async () => {
      const withToken = [`--token=${WEBHOOK_TOKEN}`, '-n', ns];
      ok(await admin().run(['-n', ns, 'create', 'configmap', 'webhook-visible', '--from-literal=k=v']));
      assert.equal(ok(await bare().run([...withToken, 'get', 'configmaps', '-o', 'name'])), 'configmap/webhook-visible\n');
      assert.equal(ok(await bare().run([...withToken, 'get', 'configmap', 'webhook-visible', '-o', 'jsonpath={.data.k}'])), 'v');
      fails(
        await bare().run([...withToken, 'get', 'secrets']),
        `Error from server (Forbidden): secrets is forbidden: User "webhook-user" cannot list resource "secrets" in API group "" in the namespace "${ns}": the e2e webhook keeps secrets from webhook-user\n`,
      );
      // Neither Node nor RBAC allows it: the webhook's allow is what counts.
      const write = await bare().run([...withToken, 'create', 'configmap', 'nope']);
      fails(write, `error: failed to create configmap: configmaps is forbidden: User "webhook-user" cannot create resource "configmaps" in API group "" in the namespace "${ns}"\n`);

      const spec = (attrs: Record<string, string>) => ({
        user: 'webhook-user',
        uid: 'uid-webhook-user',
        groups: ['webhook-group', 'system:authenticated'],
        resourceAttributes: { namespace: ns, version: 'v1', ...attrs },
      });
      const list = reviewsFor('webhook-user', { namespace: ns, resource: 'configmaps', verb: 'list' });
      assert.equal(list.length, 1, 'a list is asked once (then the allow is cached)');
      assert.equal(list[0].apiVersion, 'authorization.k8s.io/v1');
      assert.equal(list[0].kind, 'SubjectAccessReview');
      assert.deepEqual(list[0].spec, spec({ verb: 'list', resource: 'configmaps' }));
      const get = reviewsFor('webhook-user', { namespace: ns, resource: 'configmaps', verb: 'get' });
      assert.deepEqual(get.at(-1)?.spec, spec({ verb: 'get', resource: 'configmaps', name: 'webhook-visible' }));
      const secrets = reviewsFor('webhook-user', { namespace: ns, resource: 'secrets' });
      assert.deepEqual(secrets.at(-1)?.spec, spec({ verb: 'list', resource: 'secrets' }));
      // The admin (system:masters) never reaches the webhook.
      assert.deepEqual(reviewsFor(ctx.admin.name), []);
    });

    it('escalation is refused: a user who may create roles cannot grant pods permissions it does not hold', async () => {
      const writer = 'role-writer';
      const writerUser = `system:serviceaccount:${ns}:${writer}`;
      ok(await admin().run(['-n', ns, 'create', 'serviceaccount', writer]));
      ok(await admin().run(['-n', ns, 'create', 'role', writer, '--verb=get,list,create,update', '--resource=roles.rbac.authorization.k8s.io']));
      ok(await admin().run(['-n', ns, 'create', 'rolebinding', writer, `--role=${writer}`, `--serviceaccount=${ns}:${writer}`]));
      const token = ok(await admin().run(['-n', ns, 'create', 'token', writer])).trim();
      const asWriter = [`--token=${token}`, '-n', ns];
      assert.equal(await eventuallyOk(bare(), [...asWriter, 'auth', 'can-i', 'create', 'roles.rbac.authorization.k8s.io']), 'yes\n');

      fails(
        await bare().run([...asWriter, 'create', 'role', 'escalate', '--verb=get', '--resource=pods']),
        `Error from server (Forbidden): roles.rbac.authorization.k8s.io "escalate" is forbidden: user "${writerUser}" (groups=["system:serviceaccounts" "system:serviceaccounts:${ns}" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}\n`,
      );
      // Rules it holds it may grant.
      assert.equal(
        ok(await bare().run([...asWriter, 'create', 'role', 'role-lister', '--verb=get,list', '--resource=roles.rbac.authorization.k8s.io'])),
        'role.rbac.authorization.k8s.io/role-lister created\n',
      );
      fails(await admin().run(['-n', ns, 'get', 'role', 'escalate']), `Error from server (NotFound): roles.rbac.authorization.k8s.io "escalate" not found\n`);
    });

    it('auth can-i --list warns that the list may be incomplete when a webhook is in the chain', async () => {
        const result = await admin().run(['auth', 'can-i', '--list', '-n', ns, `--as=system:serviceaccount:${ns}:nobody`]);
        ok(result);
        assert.match(result.stderr, /the list may be incomplete: webhook authorizer does not support user rule resolution/);
    });
  });
}

describe('anonymous requests (no credentials)', () => {
  it('health and version are public; the API is Forbidden to system:anonymous', async () => {
    const anon = client(ctx.srv.url, ctx.srv.anonymousAgent);
    for (const p of ['/livez', '/readyz', '/healthz']) {
      const r = await anon.get(p);
      assert.equal(r.status, 200, `${p}: ${r.text}`);
      assert.equal(r.text, 'ok');
    }
    const version = await anon.get('/version');
    assert.equal(version.status, 200, version.text);
    assert.equal(version.json.major, '1');
    const r = await anon.get('/api/v1/namespaces');
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
    const apis = await anon.get('/apis');
    assert.equal(apis.status, 403, apis.text);
    assert.equal(apis.json.message, 'forbidden: User "system:anonymous" cannot get path "/apis"');
  });

  it('with --anonymous-auth=false every request without credentials is a 401, health included', async () => {
    const closed = await startTestServer(['--anonymous-auth=false']);
    try {
      const agent = new https.Agent({ ca: closed.ca });
      try {
        const anon = client(closed.url, agent);
        for (const p of ['/livez', '/version', '/api/v1/namespaces']) {
          const r = await anon.get(p);
          assert.equal(r.status, 401, `${p}: ${r.text}`);
          assert.equal(r.json?.reason, 'Unauthorized', r.text);
        }
        assert.equal((await client(closed.url, closed.adminAgent).get('/api/v1/namespaces')).status, 200);
      } finally {
        agent.destroy();
      }
    } finally {
      await closed.stop();
    }
  });
});
