/** Service account token issuing and verification without a server: keys, claims, clock, lookups. */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { systemContext } from '../../src/api/request-context.ts';
import { jwks, openIdConfiguration } from '../../src/auth/serviceaccount/discovery.ts';
import { EXPIRATION_EXTENSION_SECONDS, ServiceAccountTokens } from '../../src/auth/serviceaccount/issuer.ts';
import { parseJws, signJws } from '../../src/auth/serviceaccount/jws.ts';
import { keyId, loadServiceAccountKeys, signingKey } from '../../src/auth/serviceaccount/keys.ts';
import { mapLookup } from '../../src/auth/serviceaccount/lookup.ts';
import { ServiceAccountTokenVerifier } from '../../src/auth/serviceaccount/verifier.ts';
import { notFound } from '../../src/api/errors.ts';

const ISSUER = 'https://issuer.test';
const work = await mkdtemp(path.join(tmpdir(), 'sa-tokens-'));
after(() => rm(work, { recursive: true, force: true }));

function obj(kind: string, namespace: string, name: string, uid: string, extra: Record<string, unknown> = {}): StoredKubeObject {
  return { apiVersion: 'v1', kind, metadata: { name, namespace, uid }, ...extra } as unknown as StoredKubeObject;
}

function world() {
  const objects = new Map<string, StoredKubeObject>();
  const put = (resource: string, o: StoredKubeObject) => objects.set(`${resource}/${resource === 'nodes' ? '' : o.metadata.namespace}/${o.metadata.name}`, o);
  put('serviceaccounts', obj('ServiceAccount', 'ns', 'sa', 'sa-uid'));
  put('pods', obj('Pod', 'ns', 'p', 'pod-uid', { spec: { serviceAccountName: 'sa', nodeName: 'n1' } }));
  put('nodes', obj('Node', '', 'n1', 'node-uid'));
  put('secrets', obj('Secret', 'ns', 's', 'secret-uid'));
  const lookup = mapLookup(objects);
  const get = async (_ctx: unknown, resource: string, namespace: string, name: string) => {
    const found = await lookup.get(resource as never, namespace, name);
    if (!found) throw notFound({ group: '', resource }, name);
    return found;
  };
  return { objects, put, lookup, get };
}

const rsa = signingKey(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);

function setup(options: { now?: () => number; max?: number; extend?: boolean; lookupEnabled?: boolean } = {}) {
  const w = world();
  const now = options.now ?? Date.now;
  const tokens = new ServiceAccountTokens({ issuer: ISSUER, key: rsa, apiAudiences: ['api'], maxExpirationSeconds: options.max ?? 0, extendExpiration: options.extend ?? true, get: w.get, now });
  const verifier = new ServiceAccountTokenVerifier({ issuers: [ISSUER], keys: [rsa], lookup: w.lookup, lookupEnabled: options.lookupEnabled ?? true, now });
  return { ...w, tokens, verifier };
}

function request(spec: Record<string, unknown> = {}) {
  return { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: { audiences: [], expirationSeconds: 3600, ...spec } };
}

test('a token names the service account and verifies with its uid, groups and credential id', async () => {
  const { tokens, verifier } = setup();
  const ctx = systemContext();
  const answer = (await tokens.requestToken(ctx, 'ns', 'sa', request() as never)) as any;
  const claims = parseJws(answer.status.token)!.payload as any;
  assert.equal(claims.iss, ISSUER);
  assert.equal(claims.sub, 'system:serviceaccount:ns:sa');
  assert.deepEqual(claims.aud, ['api']);
  assert.equal(claims.exp - claims.iat, 3600);
  assert.equal(claims.nbf, claims.iat);
  assert.match(claims.jti, /^[0-9a-f-]{36}$/);
  assert.deepEqual(claims['kubernetes.io'], { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'sa-uid' } });
  assert.match(answer.status.expirationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const header = parseJws(answer.status.token)!.header;
  assert.deepEqual(header, { alg: 'RS256', kid: rsa.kid });

  const found = (await verifier.verify(answer.status.token, ['api']))!;
  assert.deepEqual(found.user, {
    name: 'system:serviceaccount:ns:sa',
    uid: 'sa-uid',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
    extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
  });
  assert.deepEqual(found.audiences, ['api']);
});

test('wrong audience, bad signature, foreign issuer', async () => {
  const { tokens, verifier } = setup();
  const t = ((await tokens.requestToken(systemContext(), 'ns', 'sa', request({ audiences: ['a', 'b'] }) as never)) as any).status.token as string;
  await assert.rejects(verifier.verify(t, ['api']), { message: 'token audiences ["a" "b"] is invalid for the target audiences ["api"]' });
  assert.deepEqual((await verifier.verify(t, ['b', 'c']))!.audiences, ['b']);
  const [h, p] = t.split('.');
  const other = signingKey(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
  const forged = signJws(JSON.parse(Buffer.from(p!, 'base64url').toString()), { ...other, kid: rsa.kid });
  await assert.rejects(verifier.verify(forged, ['a']), { message: 'invalid signature' });
  await assert.rejects(verifier.verify(`${h}.${p}.AAAA`, ['a']), { message: 'invalid signature' });
  const foreign = signJws({ iss: 'https://elsewhere', aud: ['a'] }, rsa);
  assert.equal(await verifier.verify(foreign, ['a']), null);
  assert.equal(await verifier.verify('not-a-jwt', ['a']), null);
});

test('expiry and not-before follow the clock with a minute of leeway', async () => {
  let now = Date.UTC(2030, 0, 1);
  const { tokens, verifier } = setup({ now: () => now });
  const t = ((await tokens.requestToken(systemContext(), 'ns', 'sa', request({ expirationSeconds: 600 }) as never)) as any).status.token as string;
  now += 600_000 + 59_000;
  assert.ok(await verifier.verify(t, ['api']));
  now += 2_000;
  await assert.rejects(verifier.verify(t, ['api']), { message: 'service account token has expired' });
  now = Date.UTC(2030, 0, 1) - 61_000;
  await assert.rejects(verifier.verify(t, ['api']), { message: 'service account token is not valid yet' });
});

test('pod-bound tokens name the pod and its node, and die with the pod', async () => {
  const w = setup();
  const ctx = systemContext();
  const answer = (await w.tokens.requestToken(ctx, 'ns', 'sa', request({ boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'pod-uid' } }) as never)) as any;
  const claims = parseJws(answer.status.token)!.payload as any;
  assert.deepEqual(claims['kubernetes.io'].pod, { name: 'p', uid: 'pod-uid' });
  assert.deepEqual(claims['kubernetes.io'].node, { name: 'n1', uid: 'node-uid' });
  const user = (await w.verifier.verify(answer.status.token, ['api']))!.user;
  assert.deepEqual(user.extra?.['authentication.kubernetes.io/pod-name'], ['p']);
  assert.deepEqual(user.extra?.['authentication.kubernetes.io/pod-uid'], ['pod-uid']);
  assert.deepEqual(user.extra?.['authentication.kubernetes.io/node-name'], ['n1']);
  assert.deepEqual(user.extra?.['authentication.kubernetes.io/node-uid'], ['node-uid']);
  // Recreated pod: another uid.
  w.put('pods', obj('Pod', 'ns', 'p', 'pod-uid-2', { spec: { serviceAccountName: 'sa' } }));
  w.lookup.invalidate();
  await assert.rejects(w.verifier.verify(answer.status.token, ['api']), { message: 'pod UID (pod-uid-2) does not match service account pod ref claim (pod-uid)' });
  w.objects.delete('pods/ns/p');
  w.lookup.invalidate();
  await assert.rejects(w.verifier.verify(answer.status.token, ['api']), { message: 'service account token has been invalidated' });
});

test('deleted or recreated service account and deleted secret revoke', async () => {
  const w = setup();
  const ctx = systemContext();
  const t = ((await w.tokens.requestToken(ctx, 'ns', 'sa', request({ boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 's' } }) as never)) as any).status.token as string;
  assert.ok(await w.verifier.verify(t, ['api']));
  w.objects.delete('secrets/ns/s');
  // Cached until the lookups say something changed.
  assert.ok(await w.verifier.verify(t, ['api']));
  w.lookup.invalidate();
  await assert.rejects(w.verifier.verify(t, ['api']), { message: 'service account token has been invalidated' });
  w.put('secrets', obj('Secret', 'ns', 's', 'secret-uid'));
  w.put('serviceaccounts', obj('ServiceAccount', 'ns', 'sa', 'sa-uid-2'));
  w.lookup.invalidate();
  await assert.rejects(w.verifier.verify(t, ['api']), { message: 'service account UID (sa-uid-2) does not match claim (sa-uid)' });
  w.objects.delete('serviceaccounts/ns/sa');
  w.lookup.invalidate();
  await assert.rejects(w.verifier.verify(t, ['api']), { message: 'serviceaccounts "sa" not found' });
  // Without --service-account-lookup the claims are trusted.
  const trusting = new ServiceAccountTokenVerifier({ issuers: [ISSUER], keys: [rsa], lookup: w.lookup, lookupEnabled: false });
  assert.ok(trusting.verify(t, ['api']));
});

test('node-bound tokens name the node and die with it', async () => {
  const w = setup();
  const answer = (await w.tokens.requestToken(systemContext(), 'ns', 'sa', request({ boundObjectRef: { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' } }) as never)) as any;
  const claims = parseJws(answer.status.token)!.payload as any;
  assert.deepEqual(claims['kubernetes.io'].node, { name: 'n1', uid: 'node-uid' });
  assert.equal(claims['kubernetes.io'].pod, undefined);
  const user = (await w.verifier.verify(answer.status.token, ['api']))!.user;
  assert.deepEqual(user.extra?.['authentication.kubernetes.io/node-name'], ['n1']);
  assert.deepEqual(user.extra?.['authentication.kubernetes.io/node-uid'], ['node-uid']);
  assert.equal(user.extra?.['authentication.kubernetes.io/pod-name'], undefined);
  w.objects.delete('nodes//n1');
  w.lookup.invalidate();
  await assert.rejects(w.verifier.verify(answer.status.token, ['api']), { message: 'service account token has been invalidated' });
});

test('a cached verification expires with the cache, not later', async () => {
  let now = Date.UTC(2030, 0, 1);
  const w = setup({ now: () => now });
  const t = ((await w.tokens.requestToken(systemContext(), 'ns', 'sa', request({ expirationSeconds: 600 }) as never)) as any).status.token as string;
  assert.ok(await w.verifier.verify(t, ['api']));
  // Gone without the lookups telling: the cached answer holds for a few seconds only.
  w.objects.delete('serviceaccounts/ns/sa');
  now += 5_000;
  assert.ok(await w.verifier.verify(t, ['api']));
  now += 6_000;
  await assert.rejects(w.verifier.verify(t, ['api']), { message: 'serviceaccounts "sa" not found' });
});

test('request rules: missing account, bound object checks, cap and extension', async () => {
  const w = setup({ max: 7200 });
  const ctx = systemContext();
  await assert.rejects(w.tokens.requestToken(ctx, 'ns', 'nope', request() as never), { message: 'serviceaccounts "nope" not found' });
  await assert.rejects(w.tokens.requestToken(ctx, 'ns', 'sa', request({ boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'gone' } }) as never), { message: 'pods "gone" not found' });
  await assert.rejects(
    w.tokens.requestToken(ctx, 'ns', 'sa', request({ boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'other' } }) as never),
    (err: any) => err.code === 409 && err.message === 'Operation cannot be fulfilled on Pod "p": the UID in the bound object reference (other) does not match the UID in record. The object might have been deleted and then recreated',
  );
  await assert.rejects(
    w.tokens.requestToken(ctx, 'ns', 'sa', request({ boundObjectRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' } }) as never),
    (err: any) => err.code === 400 && err.message === 'cannot bind token for serviceaccount "sa" to object of type apps/v1, Kind=Deployment',
  );
  await assert.rejects(w.tokens.requestToken(ctx, 'ns', 'other', request({ boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p' } }) as never), { message: 'serviceaccounts "other" not found' });
  await assert.rejects(w.tokens.requestToken(ctx, 'ns', 'sa', { ...request(), metadata: { name: 'x' } } as never), (err: any) => err.code === 422);

  const capped = (await w.tokens.requestToken(ctx, 'ns', 'sa', request({ expirationSeconds: 100_000 }) as never)) as any;
  assert.equal(capped.spec.expirationSeconds, 7200);
  assert.deepEqual(ctx.warnings, ['requested expiration of 100000 seconds shortened to 7200 seconds']);

  const extended = (await w.tokens.requestToken(ctx, 'ns', 'sa', request({ expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p' } }) as never)) as any;
  const claims = parseJws(extended.status.token)!.payload as any;
  assert.equal(claims.exp - claims.iat, EXPIRATION_EXTENSION_SECONDS);
  assert.equal(claims['kubernetes.io'].warnafter, claims.iat + 3607);
  const notExtended = (await setup({ extend: false }).tokens.requestToken(ctx, 'ns', 'sa', request({ expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p' } }) as never)) as any;
  const c2 = parseJws(notExtended.status.token)!.payload as any;
  assert.equal(c2.exp - c2.iat, 3607);
  assert.equal(c2['kubernetes.io'].warnafter, undefined);
});

test('keys: generated once with mode 0600, key files with several keys, ECDSA', async () => {
  const dataDir = path.join(work, 'data');
  const first = await loadServiceAccountKeys({ signingKeyFile: '', keyFiles: [], dataDir });
  assert.equal((await stat(path.join(dataDir, 'pki', 'sa.key'))).mode & 0o777, 0o600);
  assert.match(await readFile(path.join(dataDir, 'pki', 'sa.pub'), 'utf8'), /BEGIN PUBLIC KEY/);
  assert.equal(first.signing.alg, 'RS256');
  assert.equal(first.signing.key.asymmetricKeyDetails?.modulusLength, 2048);
  const again = await loadServiceAccountKeys({ signingKeyFile: '', keyFiles: [], dataDir });
  assert.equal(again.signing.kid, first.signing.kid);

  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsa2 = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const bundle = path.join(work, 'bundle.pem');
  await writeFile(
    bundle,
    [ec.publicKey.export({ type: 'spki', format: 'pem' }), rsa2.privateKey.export({ type: 'pkcs1', format: 'pem' })].join('\n'),
  );
  const ecFile = path.join(work, 'ec.key');
  await writeFile(ecFile, ec.privateKey.export({ type: 'sec1', format: 'pem' }));
  const keys = await loadServiceAccountKeys({ signingKeyFile: ecFile, keyFiles: [bundle], dataDir });
  assert.equal(keys.signing.alg, 'ES256');
  // The EC key appears once (signing and bundle), plus the bundle's RSA key.
  assert.deepEqual(new Set(keys.verification.map((k) => k.kid)), new Set([keyId(ec.publicKey), keyId(rsa2.publicKey)]));

  // A token signed by the bundle's RSA key verifies.
  const w = world();
  const verifier = new ServiceAccountTokenVerifier({ issuers: [ISSUER], keys: keys.verification, lookup: w.lookup, lookupEnabled: true });
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: ISSUER, sub: 'system:serviceaccount:ns:sa', aud: ['api'], iat: now, nbf: now, exp: now + 600, 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'sa-uid' } } };
  assert.ok(await verifier.verify(signJws(claims, signingKey(rsa2.privateKey)), ['api']));
  assert.ok(await verifier.verify(signJws(claims, keys.signing), ['api']));

  await writeFile(path.join(work, 'junk.pem'), 'nothing here');
  await assert.rejects(loadServiceAccountKeys({ signingKeyFile: '', keyFiles: [path.join(work, 'junk.pem')], dataDir }), /no public or private key found/);
});

test('kid is base64url of the SHA-256 of the DER public key', () => {
  const { createHash } = require_crypto();
  const der = rsa.key.export({ type: 'spki', format: 'der' });
  assert.equal(rsa.kid, createHash('sha256').update(der).digest('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
});

test('discovery documents', () => {
  const cfg = openIdConfiguration(ISSUER, [rsa]);
  assert.deepEqual(cfg, {
    issuer: ISSUER,
    jwks_uri: `${ISSUER}/openid/v1/jwks`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
  });
  const set = jwks([rsa]);
  assert.equal(set.keys.length, 1);
  assert.equal(set.keys[0]!.kid, rsa.kid);
  assert.equal(set.keys[0]!.use, 'sig');
  assert.equal(set.keys[0]!.alg, 'RS256');
  assert.equal(set.keys[0]!.kty, 'RSA');
  assert.equal(set.keys[0]!.d, undefined, 'never the private part');
});

test('legacy Secret-based tokens are checked against the Secret', async () => {
  const w = world();
  const verifier = new ServiceAccountTokenVerifier({ issuers: [ISSUER], keys: [rsa], lookup: w.lookup, lookupEnabled: false });
  const token = signJws(
    {
      iss: 'kubernetes/serviceaccount',
      sub: 'system:serviceaccount:ns:sa',
      'kubernetes.io/serviceaccount/namespace': 'ns',
      'kubernetes.io/serviceaccount/secret.name': 'legacy',
      'kubernetes.io/serviceaccount/service-account.name': 'sa',
      'kubernetes.io/serviceaccount/service-account.uid': 'sa-uid',
    },
    rsa,
  );
  await assert.rejects(verifier.verify(token, ['api']), { message: 'token has been invalidated' });
  w.put('secrets', obj('Secret', 'ns', 'legacy', 'u', { data: { token: Buffer.from('other').toString('base64') } }));
  await assert.rejects(verifier.verify(token, ['api']), { message: "token does not match server's copy" });
  w.put('secrets', obj('Secret', 'ns', 'legacy', 'u', { data: { token: Buffer.from(token).toString('base64') } }));
  assert.equal((await verifier.verify(token, ['api']))!.user.name, 'system:serviceaccount:ns:sa');
});

function require_crypto() {
  return { createHash: (a: string) => import_createHash(a) };
}
import { createHash as import_createHash } from 'node:crypto';
