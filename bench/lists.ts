import { decodeContinue } from '../src/registry/continue-token.ts';
import type { ListOptions } from '../src/storage/storage.ts';
import { buildListQuery } from '../src/storage/postgres/list-query.ts';
import { ensureNamespace, seedConfigMaps, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import { timed } from './load.ts';
import type { Row } from './report.ts';
import { rounded, summarize, type Summary } from './stats.ts';

const REF = { group: '', resource: 'configmaps' };

interface ListMeta {
  continue?: string;
  resourceVersion: string;
  remainingItemCount?: number;
}

async function repeat(times: number, fn: () => Promise<unknown>): Promise<Summary> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) samples.push((await timed(fn)).ms);
  return rounded(summarize(samples));
}

/**
 * List latency on a namespace of N ConfigMaps: one full list, page 1 with limit, and page K reached by
 * following continue tokens (the page-K request itself is timed). Raw: the statement buildListQuery
 * makes for the same options, run on the server's database.
 */
export async function measureLists(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const ns = 'bench-list';
  const n = cfg.listObjects;
  const reps = cfg.listRepeats;
  const pageReps = reps * 3;
  await ensureNamespace(ctx, ns);
  ctx.step('lists: seed', `${n} ConfigMaps`);
  await seedConfigMaps(ctx.serverDb, ns, 'cm', n, cfg.payloadBytes);
  const collection = `/api/v1/namespaces/${ns}/configmaps`;

  // Full list: check the count once (untimed), then time whole responses.
  const first = JSON.parse((await expect(200, ctx.url(collection), ctx.agent)).text) as { items: unknown[] };
  if (first.items.length !== n) throw new Error(`full list returned ${first.items.length} items, expected ${n}`);
  ctx.step('lists: full, server', `${reps} full lists of ${n}`, reps);
  const fullServer = await repeat(reps, () => expect(200, ctx.url(collection), ctx.agent));
  const rawQuery = async (options: ListOptions, expectRows: number) => {
    const q = buildListQuery(REF, options);
    const res = await ctx.serverDb.query(q);
    if (res.rows.length !== expectRows) throw new Error(`raw list returned ${res.rows.length} rows, expected ${expectRows}`);
  };
  ctx.step('lists: full, raw', `${reps} raw full-list statements`, reps + 1);
  const fullOptions: ListOptions = { namespace: ns, countRemaining: true };
  await rawQuery(fullOptions, n);
  const fullRaw = await repeat(reps, () => rawQuery(fullOptions, n));

  // Page 1.
  const limit = cfg.pageSize;
  const pageUrl = (token?: string) => ctx.url(`${collection}?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
  ctx.step('lists: page 1, server', `limit=${limit}, ${pageReps} times`, pageReps + 1);
  await expect(200, pageUrl(), ctx.agent);
  const page1Server = await repeat(pageReps, () => expect(200, pageUrl(), ctx.agent));
  ctx.step('lists: page 1, raw', `${pageReps} raw page statements`, pageReps + 1);
  const page1Options: ListOptions = { namespace: ns, limit, countRemaining: true };
  await rawQuery(page1Options, limit + 1);
  const page1Raw = await repeat(pageReps, () => rawQuery(page1Options, limit + 1));

  // Walk to the page before the deep one (timing every page), then time the deep page with its token.
  const deep = cfg.deepPage;
  ctx.step(`lists: walk pages 1..${deep - 1}`, `following continue tokens to page ${deep}`, deep - 1);
  const tokens: (string | undefined)[] = [undefined]; // tokens[p - 1] fetches page p
  const walk: number[] = [];
  const walkStart = performance.now();
  for (let page = 1; page < deep; page++) {
    const { ms, value } = await timed(() => expect(200, pageUrl(tokens[page - 1]), ctx.agent));
    walk.push(ms);
    const meta = (JSON.parse(value.text) as { metadata: ListMeta }).metadata;
    if (!meta.continue) throw new Error(`no continue token after page ${page}`);
    tokens.push(meta.continue);
  }
  const walkMs = performance.now() - walkStart;

  const continuePage = async (page: number) => {
    const token = tokens[page - 1];
    const reply = JSON.parse((await expect(200, pageUrl(token), ctx.agent)).text) as { items: unknown[]; metadata: ListMeta };
    ctx.step(`lists: page ${page}, server`, '', pageReps);
    const server = await repeat(pageReps, () => expect(200, pageUrl(token), ctx.agent));
    ctx.step(`lists: page ${page}, raw`, '', pageReps + 1);
    let options: ListOptions = { namespace: ns, limit, countRemaining: true };
    if (token) {
      const pos = decodeContinue(token, true);
      // As the server reads it: the count of what follows comes with the token (see continue-token.ts).
      options = { ...options, after: pos.after, exactVersion: pos.resourceVersion, ...(pos.remaining !== undefined ? { remainingAfter: pos.remaining } : {}) };
    }
    const rows = reply.items.length + (reply.metadata.continue ? 1 : 0);
    await rawQuery(options, rows);
    const raw = await repeat(pageReps, () => rawQuery(options, rows));
    return { server, raw, items: reply.items.length };
  };
  const deepPage = await continuePage(deep);
  const secondPage = deep > 2 ? await continuePage(2) : undefined;
  const walkStats = rounded(summarize(walk));
  const etcd = ctx.peer ? await ctx.peer.lists(ns, n, limit, deep > 2 ? [1, deep, 2] : [1, deep], reps, ctx.step) : undefined;
  const etcdPage = (page: number) => (etcd ? { etcd: etcd.pages.get(page)!.p50, etcdDetails: etcd.pages.get(page) } : {});

  return [
    {
      id: 'list_full_ms',
      metric: `full list of ${n.toLocaleString('en-US')} (no limit), p50`,
      unit: 'ms',
      server: fullServer.p50,
      raw: fullRaw.p50,
      better: 'lower',
      note: `buildListQuery at the latest version, all rows fetched as text into this process (median of ${reps}).`,
      details: { server: fullServer, raw: fullRaw },
      ...(etcd
        ? {
            etcd: etcd.full.p50,
            etcdNote: `one Range over /registry/configmaps/${ns}/ without limit (what kube-apiserver sends etcd for a list without limit; served from etcd, not the watch cache); page rows: Range with limit ${limit}, continue pages from the key after the last one at page 1's revision.`,
            etcdDetails: etcd.full,
          }
        : {}),
    },
    {
      id: 'list_page1_ms',
      metric: `list page 1, limit=${limit}, p50`,
      unit: 'ms',
      server: page1Server.p50,
      raw: page1Raw.p50,
      better: 'lower',
      note: `buildListQuery with limit ${limit + 1} and the remaining-item count (median of ${pageReps}).`,
      details: { server: page1Server, raw: page1Raw },
      ...etcdPage(1),
    },
    {
      id: 'list_deep_page_ms',
      metric: `list page ${deep}, limit=${limit}, p50`,
      unit: 'ms',
      server: deepPage.server.p50,
      raw: deepPage.raw.p50,
      better: 'lower',
      note:
        `the continue-token page: buildListQuery at the token's exact version (objects ∪ history) after its key, the remaining count taken from the token (median of ${pageReps}; ` +
        `${deepPage.items} items). Walking pages 1..${deep - 1} took ${Math.round(walkMs)} ms (per page p50 ${walkStats.p50} ms, max ${walkStats.max} ms).`,
      details: { server: deepPage.server, raw: deepPage.raw, items: deepPage.items, walk: { totalMs: Math.round(walkMs), perPage: walkStats } },
      ...etcdPage(deep),
    },
    ...(secondPage
      ? [
          {
            id: 'list_page2_ms',
            metric: `list page 2, limit=${limit}, p50`,
            unit: 'ms',
            server: secondPage.server.p50,
            raw: secondPage.raw.p50,
            better: 'lower' as const,
            note: `the first continue-token page, with ${n - limit} items after it (its remaining count taken from the token, not counted again).`,
            details: { server: secondPage.server, raw: secondPage.raw },
            ...etcdPage(2),
          },
        ]
      : []),
  ];
}
