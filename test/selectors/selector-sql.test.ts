import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  METADATA_FIELDS,
  matchesFields,
  parseFieldSelector,
  type FieldSelector,
  type SelectableFields,
} from '../../src/api/selectors/field-selector.ts';
import {
  labelSelectorFromObject,
  matchesLabels,
  parseLabelSelector,
  type LabelSelector,
} from '../../src/api/selectors/label-selector.ts';
import {
  compileFieldSelector,
  compileLabelSelector,
  compileSelectors,
  type SqlFragment,
} from '../../src/storage/postgres/selector-sql.ts';

/*
 * The property that matters: for any selector, the rows the SQL fragment selects are exactly
 * the objects the in-memory matcher accepts. Runs against the real PostgreSQL in a fresh database.
 */

const ADMIN_URL = process.env.SELECTOR_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `selectors_test_${process.pid}_${randomBytes(4).toString('hex')}`;

const FIELDS: SelectableFields = {
  ...METADATA_FIELDS,
  'status.phase': ['status', 'phase'],
  'spec.flag': { path: ['spec', 'flag'], missing: 'false' },
  'spec.count': ['spec', 'count'],
};

interface Obj {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  status?: unknown;
  spec?: unknown;
}

function obj(name: string, labels?: Record<string, string>, extra: Partial<Obj> = {}): Obj {
  return { metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) }, ...extra };
}

const OBJECTS: Obj[] = [
  obj('web-1', { app: 'web', tier: 'front', n: '5' }, { status: { phase: 'Running' }, spec: { flag: true, count: 3 } }),
  obj('web-2', { app: 'web', tier: 'back', n: '10', env: 'prod' }, { status: { phase: 'Pending' } }),
  obj('db-1', { app: 'db', n: '007', 'example.com/x': 'y' }, { status: { phase: 'Running' }, spec: { flag: false } }),
  obj('empty-labels', {}),
  obj('no-labels'),
  obj('blank', { app: '', n: '' }),
  obj('numbers', { n: '9223372036854775807', m: '9223372036854775808', k: '-3', p: '+5', q: '1.5' }),
  obj('constructor', { constructor: 'x', toString: 'y' }),
  obj("o'brien\"; drop table objs; --", { app: 'web' }, { status: { phase: "'); drop table objs; --" } }),
  obj('日本語-ünï', { app: 'db' }, { status: { phase: 'Ωmega' } }),
  obj('nested', { app: 'web' }, { status: { phase: { not: 'scalar' } }, spec: { flag: null, count: 0 } }),
  { metadata: { name: 'cluster-scoped', labels: { app: 'web' } } },
  {},
];

let admin: pg.Client;
let db: pg.Client;

before(async () => {
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DB_NAME}`;
  db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  await db.query('CREATE TABLE objs (id int PRIMARY KEY, object jsonb NOT NULL)');
  await db.query(`CREATE INDEX objs_labels ON objs USING gin ((object -> 'metadata' -> 'labels'))`);
  for (const [i, o] of OBJECTS.entries()) {
    await db.query('INSERT INTO objs (id, object) VALUES ($1, $2)', [i, JSON.stringify(o)]);
  }
  await db.query('ANALYZE objs');
});

after(async () => {
  await db?.end();
  await admin?.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin?.end();
});

async function sqlIds(fragment: SqlFragment): Promise<number[]> {
  const res = await db.query<{ id: number }>(`SELECT id FROM objs o WHERE ${fragment.sql} ORDER BY id`, [...fragment.params]);
  return res.rows.map((r) => r.id);
}

function memoryIds(accept: (o: Obj) => boolean): number[] {
  return OBJECTS.flatMap((o, i) => (accept(o) ? [i] : []));
}

async function assertLabelsAgree(selector: LabelSelector | null, label: string): Promise<void> {
  const want = memoryIds((o) => matchesLabels(selector, o.metadata?.labels));
  assert.deepEqual(await sqlIds(compileLabelSelector(selector, 'o.object')), want, `label selector ${label}`);
}

async function assertFieldsAgree(selector: FieldSelector, label: string): Promise<void> {
  const want = memoryIds((o) => matchesFields(selector, o));
  assert.deepEqual(await sqlIds(compileFieldSelector(selector, 'o.object')), want, `field selector ${label}`);
}

const LABEL_SELECTORS = [
  '',
  'app=web',
  'app==web',
  'app=',
  'app!=web',
  'app!=',
  'app in (web,db)',
  'app in (web)',
  'app in ()',
  'app notin (web)',
  'app notin (web,db)',
  'app',
  '!app',
  'env',
  '!env',
  'example.com/x=y',
  'example.com/x!=y',
  'n>6',
  'n<6',
  'n>0',
  'n<0',
  'm>0',
  'k<0',
  'p>4',
  'q>1',
  'q<2',
  'app>1',
  'missing>1',
  'missing<1',
  'constructor',
  'constructor=x',
  '!toString',
  'toString notin (y)',
  'hasOwnProperty!=x',
  'app=web,tier!=back',
  'app in (web),!env,n<100',
  'app notin (db),tier notin (front),!example.com/x',
];

describe('label selectors in SQL select what they select in memory', () => {
  for (const text of LABEL_SELECTORS) {
    test(`labelSelector ${JSON.stringify(text)}`, async () => {
      await assertLabelsAgree(parseLabelSelector(text), text);
    });
  }

  test('structured selectors, including a missing one (nothing) and an empty one (everything)', async () => {
    await assertLabelsAgree(labelSelectorFromObject(null), 'null');
    await assertLabelsAgree(labelSelectorFromObject({}), '{}');
    await assertLabelsAgree(
      labelSelectorFromObject({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'NotIn', values: ['back'] },
          { key: 'n', operator: 'Exists' },
        ],
      }),
      'structured',
    );
  });

  test('random selectors agree (seeded)', async () => {
    const rand = seeded(20240611);
    const keys = ['app', 'tier', 'n', 'm', 'k', 'p', 'q', 'env', 'example.com/x', 'constructor', 'missing'];
    const values = ['web', 'db', 'front', 'back', '', '5', '10', '007', '0', '6', 'y', 'x', 'prod'];
    const ops = ['=', '==', '!=', 'in', 'notin', 'exists', '!', '>', '<'];
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    let checked = 0;
    for (let i = 0; i < 400; i++) {
      const parts: string[] = [];
      const count = 1 + Math.floor(rand() * 3);
      for (let j = 0; j < count; j++) {
        const key = pick(keys);
        const op = pick(ops);
        if (op === 'exists') parts.push(key);
        else if (op === '!') parts.push(`!${key}`);
        else if (op === 'in' || op === 'notin') parts.push(`${key} ${op} (${[pick(values), pick(values)].join(',')})`);
        else if (op === '>' || op === '<') parts.push(`${key}${op}${pick(['0', '5', '6', '9', '100'])}`);
        else parts.push(`${key}${op}${pick(values)}`);
      }
      const text = parts.join(',');
      await assertLabelsAgree(parseLabelSelector(text), text);
      checked++;
    }
    assert.equal(checked, 400);
  });

  test('hostile keys and values built without validation stay inert', async () => {
    const hostile = ["a'b", "'); DROP TABLE objs; --", 'x"y\\z', '日本', '?', '$1', "constructor'"];
    for (const key of hostile) {
      for (const operator of ['=', '!=', 'in', 'notin', 'exists', '!', 'gt', 'lt'] as const) {
        const values = operator === 'exists' || operator === '!' ? [] : operator === 'gt' || operator === 'lt' ? ['1'] : [key, "web'"];
        const selector: LabelSelector = [{ key, operator, values }];
        await assertLabelsAgree(selector, `${operator} ${key}`);
      }
    }
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM objs');
    assert.equal(Number(rows[0]!.n), OBJECTS.length);
  });

  test('equality, single-value in and exists can use a GIN index on the labels', async () => {
    await db.query('SET enable_seqscan = off');
    try {
      for (const text of ['app=web', 'app in (web)', 'app']) {
        const frag = compileLabelSelector(parseLabelSelector(text), 'o.object');
        const plan = await db.query(`EXPLAIN SELECT id FROM objs o WHERE ${frag.sql}`, [...frag.params]);
        const lines = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
        assert.match(lines, /Index Scan on objs_labels/, `${text}:\n${lines}`);
      }
    } finally {
      await db.query('RESET enable_seqscan');
    }
  });
});

const FIELD_SELECTORS = [
  '',
  'metadata.name=web-1',
  'metadata.name==web-1',
  'metadata.name!=web-1',
  'metadata.name=',
  'metadata.namespace=default',
  'metadata.namespace=',
  'metadata.namespace!=',
  'status.phase=Running',
  'status.phase!=Running',
  'status.phase=',
  'spec.flag=true',
  'spec.flag=false',
  'spec.flag!=false',
  'spec.count=3',
  'spec.count=0',
  'spec.count=',
  "metadata.name=o'brien\"; drop table objs; --",
  "status.phase='); drop table objs; --",
  'metadata.name=日本語-ünï,status.phase=Ωmega',
  'metadata.name=a\\,b\\=c\\\\',
  'metadata.namespace=default,status.phase!=Running,spec.flag=false',
];

describe('field selectors in SQL select what they select in memory', () => {
  for (const text of FIELD_SELECTORS) {
    test(`fieldSelector ${JSON.stringify(text)}`, async () => {
      await assertFieldsAgree(parseFieldSelector(text, FIELDS), text);
    });
  }

  test('injection text in values finds its object and harms nothing', async () => {
    const sel = parseFieldSelector("status.phase='); drop table objs; --", FIELDS);
    assert.deepEqual(await sqlIds(compileFieldSelector(sel, 'o.object')), [8]);
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM objs');
    assert.equal(Number(rows[0]!.n), OBJECTS.length);
  });

  test('random selectors agree (seeded)', async () => {
    const rand = seeded(7);
    const fields = Object.keys(FIELDS);
    const values = ['web-1', 'db-1', 'default', '', 'Running', 'Pending', 'true', 'false', '3', '0', 'Ωmega'];
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    for (let i = 0; i < 200; i++) {
      const count = 1 + Math.floor(rand() * 3);
      const text = Array.from({ length: count }, () => `${pick(fields)}${pick(['=', '==', '!='])}${pick(values)}`).join(',');
      await assertFieldsAgree(parseFieldSelector(text, FIELDS), text);
    }
  });
});

describe('combined fragments', () => {
  test('placeholders start where the caller says, after its own parameters', async () => {
    const frag = compileSelectors(
      {
        labels: parseLabelSelector('app=web,tier notin (back)'),
        fields: parseFieldSelector('metadata.namespace=default,status.phase!=Pending', FIELDS),
      },
      'o.object',
      3,
    );
    assert.match(frag.sql, /\$3::/);
    assert.doesNotMatch(frag.sql, /\$[12]::/);
    const res = await db.query<{ id: number }>(
      `SELECT id FROM objs o WHERE id >= $1 AND id < $2 AND ${frag.sql} ORDER BY id`,
      [0, 100, ...frag.params],
    );
    const want = memoryIds(
      (o) =>
        matchesLabels(parseLabelSelector('app=web,tier notin (back)'), o.metadata?.labels) &&
        matchesFields(parseFieldSelector('metadata.namespace=default,status.phase!=Pending', FIELDS), o),
    );
    assert.deepEqual(
      res.rows.map((r) => r.id),
      want,
    );
  });

  test('empty selectors compile to TRUE with no parameters, a missing label selector to FALSE', () => {
    assert.deepEqual(compileSelectors({}, 'o.object'), { sql: 'TRUE', params: [] });
    assert.deepEqual(compileLabelSelector([], 'o.object'), { sql: 'TRUE', params: [] });
    assert.deepEqual(compileFieldSelector([], 'o.object'), { sql: 'TRUE', params: [] });
    assert.deepEqual(compileSelectors({ labels: null }, 'o.object'), { sql: 'FALSE', params: [] });
  });

  test('user text never appears in the SQL', () => {
    const frag = compileSelectors(
      {
        labels: [{ key: "evil'key", operator: '=', values: ["evil'value"] }],
        fields: parseFieldSelector("metadata.name=evil'name", FIELDS),
      },
      'o.object',
    );
    assert.doesNotMatch(frag.sql, /evil/);
  });

  test('a placeholder index below 1 is refused', () => {
    assert.throws(() => compileLabelSelector([], 'o.object', 0), RangeError);
  });
});

/** A small deterministic generator (mulberry32) so failures reproduce. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
