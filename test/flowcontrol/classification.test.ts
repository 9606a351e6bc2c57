/**
 * Classification as upstream's dispatcher does it: FlowSchemas in matchingPrecedence then name
 * order, each subject kind, resource and non-resource rules, distinguishers, the catch-all fallback.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import type { UserInfo } from '../../src/auth/user.ts';
import { ApfController } from '../../src/flowcontrol/apf-controller.ts';
import { Classifier, compareSchemas, distinguisherOf } from '../../src/flowcontrol/classifier.ts';
import { readFlowSchema, readPriorityLevel, type FlowSchemaConfig, type PolicyRulesSpec } from '../../src/flowcontrol/config-objects.ts';
import { MANDATORY_CATCH_ALL_SCHEMA, MANDATORY_EXEMPT_SCHEMA } from '../../src/flowcontrol/mandatory-config.ts';

const silent = pino({ level: 'silent' });
const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups: [...groups, 'system:authenticated'] });
const get = (path: string, query = '') => parseRequestInfo('GET', path, new URLSearchParams(query));
const post = (path: string) => parseRequestInfo('POST', path, new URLSearchParams());

const EVERYTHING = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

function schema(name: string, precedence: number, rules: PolicyRulesSpec[], distinguisher: FlowSchemaConfig['distinguisher'] = ''): FlowSchemaConfig {
  return { name, uid: `uid-${name}`, matchingPrecedence: precedence, priorityLevelName: 'global-default', distinguisher, rules };
}

const forUsers = (...names: string[]): PolicyRulesSpec => ({ subjects: names.map((n) => ({ kind: 'User', user: { name: n } })), ...EVERYTHING });

/** The name of the schema a request classifies to, among `schemas` plus the mandatory catch-all. */
function classify(schemas: FlowSchemaConfig[], u: UserInfo, info = get('/api/v1/namespaces/ns/configmaps')): string {
  return new Classifier([...schemas, MANDATORY_CATCH_ALL_SCHEMA].sort(compareSchemas)).classify(u, info).name;
}

describe('order', () => {
  test('the lowest matchingPrecedence wins, whatever the order given', () => {
    const high = schema('zz-first', 100, [forUsers('alice')]);
    const low = schema('aa-later', 200, [forUsers('alice')]);
    assert.equal(classify([low, high], user('alice')), 'zz-first');
    assert.equal(classify([high, low], user('alice')), 'zz-first');
  });

  test('equal precedences: the name that sorts first wins', () => {
    const b = schema('b', 500, [forUsers('alice')]);
    const a = schema('a', 500, [forUsers('alice')]);
    assert.equal(classify([b, a], user('alice')), 'a');
    // Byte order, as Go compares strings: upper case sorts before lower case.
    assert.equal(classify([a, schema('B', 500, [forUsers('alice')])], user('alice')), 'B');
  });

  test('a schema that does not match is passed over; nothing matching falls to the catch-all', () => {
    const bob = schema('bob-only', 1, [forUsers('bob')]);
    assert.equal(classify([bob], user('alice')), 'catch-all');
    // A user in neither system:authenticated nor system:unauthenticated matches nothing at all: catch-all anyway.
    assert.equal(classify([bob], { name: 'ghost', groups: [] }), 'catch-all');
  });

  test('an empty rule list matches nothing', () => {
    assert.equal(classify([schema('empty', 1, [])], user('alice')), 'catch-all');
  });
});

describe('subjects', () => {
  const check = (subject: PolicyRulesSpec['subjects'][number], u: UserInfo) => classify([schema('s', 10, [{ subjects: [subject], ...EVERYTHING }])], u) === 's';

  test('User: by name, or every user with *', () => {
    assert.equal(check({ kind: 'User', user: { name: 'alice' } }, user('alice')), true);
    assert.equal(check({ kind: 'User', user: { name: 'alice' } }, user('alicia')), false);
    assert.equal(check({ kind: 'User', user: { name: '*' } }, user('anyone')), true);
  });

  test('Group: any of the user\'s groups, or every user with *', () => {
    assert.equal(check({ kind: 'Group', group: { name: 'dev' } }, user('alice', 'qa', 'dev')), true);
    assert.equal(check({ kind: 'Group', group: { name: 'dev' } }, user('alice', 'qa')), false);
    assert.equal(check({ kind: 'Group', group: { name: '*' } }, { name: 'x', groups: [] }), true);
  });

  test('ServiceAccount: namespace and name, or every account of the namespace with *', () => {
    const sa = (ns: string, name: string) => user(`system:serviceaccount:${ns}:${name}`, 'system:serviceaccounts');
    assert.equal(check({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: 'builder' } }, sa('kube-system', 'builder')), true);
    assert.equal(check({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: 'builder' } }, sa('kube-system', 'deployer')), false);
    assert.equal(check({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }, sa('kube-system', 'anything')), true);
    // The namespace is matched whole: kube is not a prefix match for kube-system.
    assert.equal(check({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube', name: '*' } }, sa('kube-system', 'x')), false);
    // A user named like an account's prefix is no account.
    assert.equal(check({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }, user('kube-system:x')), false);
  });

  test('the user classified is the impersonated one (the request state\'s user), not the caller', () => {
    const c = new ApfController({ serverConcurrencyLimit: 600, logger: silent });
    // system:masters is exempt; the same request as an ordinary user is not.
    assert.equal(c.classify(user('admin', 'system:masters'), get('/api/v1/pods')).schema.name, 'exempt');
    assert.equal(c.classify(user('admin'), get('/api/v1/pods')).schema.name, 'catch-all');
  });
});

describe('resource rules', () => {
  const rule = (r: Partial<PolicyRulesSpec['resourceRules'][number]>): FlowSchemaConfig =>
    schema('r', 10, [
      {
        subjects: [{ kind: 'Group', group: { name: '*' } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: false, namespaces: ['*'], ...r }],
        nonResourceRules: [],
      },
    ]);
  const matches = (s: FlowSchemaConfig, info: ReturnType<typeof get>) => classify([s], user('alice'), info) === 'r';

  test('verbs, as the request info names them (list, watch, create …)', () => {
    const lists = rule({ verbs: ['list'] });
    assert.equal(matches(lists, get('/api/v1/namespaces/ns/pods')), true);
    assert.equal(matches(lists, get('/api/v1/namespaces/ns/pods', 'watch=true')), false);
    assert.equal(matches(lists, get('/api/v1/namespaces/ns/pods/p')), false);
    assert.equal(matches(rule({ verbs: ['create'] }), post('/api/v1/namespaces/ns/pods')), true);
  });

  test('API groups: "" is the core group', () => {
    assert.equal(matches(rule({ apiGroups: [''] }), get('/api/v1/namespaces/ns/pods')), true);
    assert.equal(matches(rule({ apiGroups: [''] }), get('/apis/apps/v1/namespaces/ns/deployments')), false);
    assert.equal(matches(rule({ apiGroups: ['apps'] }), get('/apis/apps/v1/namespaces/ns/deployments')), true);
  });

  test('resources: a subresource is named with its resource', () => {
    const status = rule({ resources: ['pods/status'] });
    assert.equal(matches(status, get('/api/v1/namespaces/ns/pods/p/status')), true);
    assert.equal(matches(status, get('/api/v1/namespaces/ns/pods/p')), false);
    assert.equal(matches(rule({ resources: ['pods'] }), get('/api/v1/namespaces/ns/pods/p/status')), false);
    assert.equal(matches(rule({ resources: ['*'] }), get('/api/v1/namespaces/ns/pods/p/status')), true);
  });

  test('namespaces: * is every named namespace; cluster-scoped requests need clusterScope', () => {
    assert.equal(matches(rule({ namespaces: ['*'] }), get('/api/v1/namespaces/x/configmaps')), true);
    assert.equal(matches(rule({ namespaces: ['*'] }), get('/api/v1/nodes')), false);
    assert.equal(matches(rule({ namespaces: [], clusterScope: true }), get('/api/v1/nodes')), true);
    assert.equal(matches(rule({ namespaces: [], clusterScope: true }), get('/api/v1/namespaces/x/configmaps')), false);
    assert.equal(matches(rule({ namespaces: ['a', 'b'] }), get('/api/v1/namespaces/b/configmaps')), true);
    assert.equal(matches(rule({ namespaces: ['a', 'b'] }), get('/api/v1/namespaces/c/configmaps')), false);
    // A namespace object itself carries its own name as the namespace, as upstream's request info does.
    assert.equal(matches(rule({ namespaces: ['x'] }), get('/api/v1/namespaces/x')), true);
  });

  test('a resource request never matches non-resource rules, and the reverse', () => {
    const onlyUrls = schema('r', 10, [{ subjects: [{ kind: 'Group', group: { name: '*' } }], resourceRules: [], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }]);
    assert.equal(matches(onlyUrls, get('/api/v1/namespaces/x/configmaps')), false);
    assert.equal(matches(onlyUrls, get('/healthz')), true);
    assert.equal(matches(rule({}), get('/healthz')), false);
  });
});

describe('non-resource rules', () => {
  const urls = (verbs: string[], nonResourceURLs: string[]) =>
    schema('n', 10, [{ subjects: [{ kind: 'Group', group: { name: '*' } }], resourceRules: [], nonResourceRules: [{ verbs, nonResourceURLs }] }]);
  const matches = (s: FlowSchemaConfig, path: string, method = 'GET') => classify([s], user('alice'), parseRequestInfo(method, path, new URLSearchParams())) === 'n';

  test('exact paths, and (as upstream) the paths below them', () => {
    const healthz = urls(['get'], ['/healthz']);
    assert.equal(matches(healthz, '/healthz'), true);
    assert.equal(matches(healthz, '/healthz/etcd'), true);
    assert.equal(matches(healthz, '/healthzz'), false);
    assert.equal(matches(healthz, '/livez'), false);
  });

  test('a trailing /* matches below the prefix only; * matches everything', () => {
    const below = urls(['get'], ['/debug/*']);
    assert.equal(matches(below, '/debug/pprof/heap'), true);
    assert.equal(matches(below, '/debugger'), false);
    assert.equal(matches(urls(['get'], ['*']), '/anything/at/all'), true);
  });

  test('verbs are the lowercase methods', () => {
    assert.equal(matches(urls(['post'], ['/x']), '/x', 'POST'), true);
    assert.equal(matches(urls(['get'], ['/x']), '/x', 'POST'), false);
    assert.equal(matches(urls(['*'], ['/x']), '/x', 'PUT'), true);
  });
});

describe('distinguishers', () => {
  const byUser = schema('u', 1, [forUsers('alice')], 'ByUser');
  const byNamespace = schema('n', 1, [forUsers('alice')], 'ByNamespace');
  const none = schema('x', 1, [forUsers('alice')], '');

  test('ByUser: the user name; ByNamespace: the namespace, empty for cluster scope; none: empty', () => {
    const namespaced = get('/api/v1/namespaces/team-a/configmaps');
    assert.equal(distinguisherOf(byUser, user('alice'), namespaced), 'alice');
    assert.equal(distinguisherOf(byNamespace, user('alice'), namespaced), 'team-a');
    assert.equal(distinguisherOf(byNamespace, user('alice'), get('/api/v1/nodes')), '');
    assert.equal(distinguisherOf(none, user('alice'), namespaced), '');
  });

  test('the dispatcher distinguishes flows only in levels with several queues', () => {
    const c = new ApfController({ serverConcurrencyLimit: 600, logger: silent });
    const queued = { metadata: { name: 'q', uid: 'q1' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 5 } } } } };
    const single = { metadata: { name: 'one', uid: 'o1' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 5 } } } } };
    const fs = (name: string, pl: string, users: string[]) => ({
      metadata: { name, uid: `${name}-uid` },
      spec: { priorityLevelConfiguration: { name: pl }, matchingPrecedence: 100, distinguisherMethod: { type: 'ByUser' }, rules: [forUsers(...users)] },
    });
    c.setConfiguration([readPriorityLevel(queued), readPriorityLevel(single)], [readFlowSchema(fs('to-q', 'q', ['alice', 'bob'])), readFlowSchema(fs('to-one', 'one', ['carol']))]);
    const alice = c.classify(user('alice'), get('/api/v1/pods'));
    const bob = c.classify(user('bob'), get('/api/v1/pods'));
    assert.equal(alice.schema.uid, 'to-q-uid');
    assert.equal(alice.distinguisher, 'alice');
    assert.notEqual(alice.flowKey, bob.flowKey);
    assert.deepEqual(c.classify(user('alice'), get('/api/v1/nodes')).hash, alice.hash);
    const carol = c.classify(user('carol'), get('/api/v1/pods'));
    assert.equal(carol.distinguisher, '');
    assert.deepEqual(carol.hash, [0, 0, 0, 0]);
  });
});

describe('configuration digestion', () => {
  const level = (name: string) => readPriorityLevel({ metadata: { name, uid: `${name}-uid` }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, lendablePercent: 0, limitResponse: { type: 'Reject' } } } });
  const fs = (name: string, pl: string, precedence = 100) =>
    readFlowSchema({ metadata: { name, uid: `${name}-uid` }, spec: { priorityLevelConfiguration: { name: pl }, matchingPrecedence: precedence, rules: [forUsers('alice')] } });

  test('without objects the mandatory exempt and catch-all schemas and levels are imagined (no uid)', () => {
    const c = new ApfController({ serverConcurrencyLimit: 600, logger: silent });
    assert.deepEqual(c.schemas.map((s) => s.name), ['exempt', 'catch-all']);
    assert.deepEqual([...c.levels.keys()].sort(), ['catch-all', 'exempt']);
    assert.equal(c.classify(user('alice'), get('/api/v1/pods')).schema.uid, '');
    assert.deepEqual(c.schemas[0], MANDATORY_EXEMPT_SCHEMA);
  });

  test('a schema whose level does not exist is not used; it is used once the level appears', () => {
    const c = new ApfController({ serverConcurrencyLimit: 600, logger: silent });
    c.setConfiguration([], [fs('dangling', 'nowhere')]);
    assert.equal(c.classify(user('alice'), get('/api/v1/pods')).schema.name, 'catch-all');
    c.setConfiguration([level('nowhere')], [fs('dangling', 'nowhere')]);
    assert.equal(c.classify(user('alice'), get('/api/v1/pods')).schema.name, 'dangling');
  });

  test('a broken level is ignored (its schemas too): an exempt type on another name, a Reject with queuing', () => {
    const c = new ApfController({ serverConcurrencyLimit: 600, logger: silent });
    const exemptNamed = readPriorityLevel({ metadata: { name: 'sneaky' }, spec: { type: 'Exempt', exempt: {} } });
    const rejectWithQueues = readPriorityLevel({
      metadata: { name: 'mixed' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } } } },
    });
    c.setConfiguration([exemptNamed, rejectWithQueues], [fs('a', 'sneaky', 1), fs('b', 'mixed', 2)]);
    assert.equal(c.levels.has('sneaky'), false);
    assert.equal(c.levels.has('mixed'), false);
    assert.equal(c.classify(user('alice'), get('/api/v1/pods')).schema.name, 'catch-all');
  });

  test('a level whose object goes away while requests run drains, then goes', async () => {
    const c = new ApfController({ serverConcurrencyLimit: 600, logger: silent });
    c.setConfiguration([level('busy')], [fs('to-busy', 'busy')]);
    const classified = c.classify(user('alice'), get('/api/v1/pods'));
    const running = classified.level.queues!.startRequest({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }, classified.hash, classified.flowKey, '', 'to-busy')!;
    c.setConfiguration([], []);
    // Still there, draining; new requests go elsewhere.
    assert.equal(c.levels.get('busy')?.quiescing, true);
    assert.equal(c.classify(user('alice'), get('/api/v1/pods')).schema.name, 'catch-all');
    classified.level.queues!.finish(running);
    c.requestEnded(classified.level);
    await new Promise((r) => setImmediate(r));
    assert.equal(c.levels.has('busy'), false);
    // An idle level whose object goes away is dropped at once.
    c.setConfiguration([level('idle')], []);
    c.setConfiguration([], []);
    assert.equal(c.levels.has('idle'), false);
  });

  test('real mandatory objects replace the imagined ones (their uids appear)', () => {
    const c = new ApfController({ serverConcurrencyLimit: 600, logger: silent });
    const exemptLevel = readPriorityLevel({ metadata: { name: 'exempt', uid: 'pl-exempt' }, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } });
    const exemptSchema = readFlowSchema({
      metadata: { name: 'exempt', uid: 'fs-exempt' },
      spec: { priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1, rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], ...EVERYTHING }] },
    });
    c.setConfiguration([exemptLevel], [exemptSchema]);
    const admin = c.classify(user('admin', 'system:masters'), get('/api/v1/pods'));
    assert.equal(admin.schema.uid, 'fs-exempt');
    assert.equal(admin.level.config.uid, 'pl-exempt');
  });
});
