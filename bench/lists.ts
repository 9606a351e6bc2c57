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
  ctx.step('lists: full, server', `${reps} full lists of ${n}`);
  const fullServer = await repeat(reps, () => expect(200, ctx.url(collection), ctx.agent));
  const rawQuery = async (options: ListOptions, expectRows: number) => {
    const q = buildListQuery(REF, options);
    const res = await ctx.serverDb.query(q);
    if (res.rows.length !== expectRows) throw new Error(`raw list returned ${res.rows.length} rows, expected ${expectRows}`);
  };
  ctx.step('lists: full, raw', `${reps} raw full-list statements`);
  const fullOptions: ListOptions = { namespace: ns, countRemaining: true };
  await rawQuery(fullOptions, n);
  const fullRaw = await repeat(reps, () => rawQuery(fullOptions, n));

  // Page 1.
  const limit = cfg.pageSize;
  const pageUrl = (token?: string) => ctx.url(`${collection}?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
  ctx.step('lists: page 1, server', `limit=${limit}, ${pageReps} times`);
  await expect(200, pageUrl(), ctx.agent);
  const page1Server = await repeat(pageReps, () => expect(200, pageUrl(), ctx.agent));
  ctx.step('lists: page 1, raw', `${pageReps} raw page statements`);
  const page1Options: ListOptions = { namespace: ns, limit, countRemaining: true };
  await rawQuery(page1Options, limit + 1);
  const page1Raw = await repeat(pageReps, () => rawQuery(page1Options, limit + 1));

  // Walk to the page before the deep one, then time the deep page with its token.
  const deep = cfg.deepPage;
  ctx.step('lists: walk + deep page', `following continue tokens to page ${deep}`);
  let token: string | undefined;
  const walkStart = performance.now();
  for (let page = 1; page < deep; page++) {
    const meta = (JSON.parse((await expect(200, pageUrl(token), ctx.agent)).text) as { metadata: ListMeta }).metadata;
    if (!meta.continue) throw new Error(`no continue token after page ${page}`);
    token = meta.continue;
  }
  const walkMs = performance.now() - walkStart;
  const deepReply = JSON.parse((await expect(200, pageUrl(token), ctx.agent)).text) as { items: unknown[]; metadata: ListMeta };
  const deepItems = deepReply.items.length;
  const deepServer = await repeat(pageReps, () => expect(200, pageUrl(token), ctx.agent));
  ctx.step('lists: deep page, raw', `${pageReps} raw page-${deep} statements`);
  let deepOptions: ListOptions = { namespace: ns, limit, countRemaining: true };
  if (token) {
    const pos = decodeContinue(token, true);
    deepOptions = { ...deepOptions, after: pos.after, exactVersion: pos.resourceVersion };
  }
  const deepRows = deepItems + (deepReply.metadata.continue ? 1 : 0);
  await rawQuery(deepOptions, deepRows);
  const deepRaw = await repeat(pageReps, () => rawQuery(deepOptions, deepRows));

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
    },
    {
      id: 'list_deep_page_ms',
      metric: `list page ${deep}, limit=${limit}, p50`,
      unit: 'ms',
      server: deepServer.p50,
      raw: deepRaw.p50,
      better: 'lower',
      note:
        `the continue-token page: buildListQuery at the token's exact version (objects ∪ history) after its key (median of ${pageReps}; ` +
        `${deepItems} items). Walking pages 1..${deep - 1} took ${Math.round(walkMs)} ms.`,
      details: { server: deepServer, raw: deepRaw, walkMs: Math.round(walkMs), items: deepItems },
    },
  ];
}
