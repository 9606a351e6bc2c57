import { sql, type Kysely } from 'kysely';

/**
 * kube_write_batch(ops) applies a batch of API writes in one transaction, in order, and returns one
 * row per op. Every op is independent: a conflict in one does not roll back the others.
 *
 * Commit order equals resourceVersion order because the whole batch runs under one transaction-level
 * advisory lock, taken before the first nextval() and released only after commit (locks are released
 * after the commit is visible). So a reader that sees version N already sees every committed version
 * below N. NOTIFY already makes notifying transactions commit one at a time, so the lock costs little;
 * batching several API writes into one transaction is what raises throughput.
 *
 * Op shape: {op: 'create'|'update'|'delete', g, r, ns, n, object?, rv? (expected resourceVersion),
 * uid? (expected uid), nsgate? (a create that needs its namespace to exist and not be terminating)}.
 * Outcomes: ok, exists, not_found, conflict (resourceVersion mismatch), uid_mismatch,
 * namespace_missing, namespace_terminating. On a non-ok outcome the current object (if any) is
 * returned. The namespace gate runs under the same lock as namespace deletion, so a create can
 * never slip into a namespace whose deletion committed first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
create function kube_write_batch(ops jsonb)
returns table (idx int, outcome text, resource_version bigint, object text)
language plpgsql as $fn$
declare
  op jsonb;
  i int := 0;
  rv bigint;
  cur record;
  obj jsonb;
  ns_obj jsonb;
  last_rv bigint := 0;
begin
  perform pg_advisory_xact_lock(7158325001);
  for op in select value from jsonb_array_elements(ops) loop
    i := i + 1;
    idx := i;
    select o.resource_version as rv, o.uid, o.object
      into cur
      from objects o
     where o.api_group = op->>'g' and o.resource = op->>'r'
       and o.namespace = op->>'ns' and o.name = op->>'n'
       for update;

    if op->>'op' = 'create' then
      if found then
        outcome := 'exists'; resource_version := cur.rv; object := cur.object::text;
        return next; continue;
      end if;
      if (op->>'nsgate')::boolean then
        select o.object into ns_obj from objects o
         where o.api_group = '' and o.resource = 'namespaces' and o.namespace = '' and o.name = op->>'ns';
        if ns_obj is null then
          outcome := 'namespace_missing'; resource_version := null; object := null;
          return next; continue;
        end if;
        if ns_obj->'metadata' ? 'deletionTimestamp' then
          outcome := 'namespace_terminating'; resource_version := null; object := ns_obj::text;
          return next; continue;
        end if;
      end if;
      rv := nextval('resource_version_seq');
      obj := jsonb_set(op->'object', '{metadata,resourceVersion}', to_jsonb(rv::text));
      insert into objects (api_group, resource, namespace, name, uid, resource_version, object)
      values (op->>'g', op->>'r', op->>'ns', op->>'n', (obj->'metadata'->>'uid')::uuid, rv, obj);
      insert into history (resource_version, api_group, resource, namespace, name, event_type, object, previous)
      values (rv, op->>'g', op->>'r', op->>'ns', op->>'n', 'ADDED', obj, null);
    else
      if not found then
        outcome := 'not_found'; resource_version := null; object := null;
        return next; continue;
      end if;
      if op->>'rv' is not null and (op->>'rv')::bigint <> cur.rv then
        outcome := 'conflict'; resource_version := cur.rv; object := cur.object::text;
        return next; continue;
      end if;
      if op->>'uid' is not null and (op->>'uid')::uuid <> cur.uid then
        outcome := 'uid_mismatch'; resource_version := cur.rv; object := cur.object::text;
        return next; continue;
      end if;
      rv := nextval('resource_version_seq');
      if op->>'op' = 'update' then
        obj := jsonb_set(op->'object', '{metadata,resourceVersion}', to_jsonb(rv::text));
        update objects o set resource_version = rv, object = obj
         where o.api_group = op->>'g' and o.resource = op->>'r'
           and o.namespace = op->>'ns' and o.name = op->>'n';
        insert into history (resource_version, api_group, resource, namespace, name, event_type, object, previous)
        values (rv, op->>'g', op->>'r', op->>'ns', op->>'n', 'MODIFIED', obj, cur.object);
      else
        -- The deleted object carries the version of its deletion, as watchers expect.
        obj := jsonb_set(cur.object, '{metadata,resourceVersion}', to_jsonb(rv::text));
        delete from objects o
         where o.api_group = op->>'g' and o.resource = op->>'r'
           and o.namespace = op->>'ns' and o.name = op->>'n';
        insert into history (resource_version, api_group, resource, namespace, name, event_type, object, previous)
        values (rv, op->>'g', op->>'r', op->>'ns', op->>'n', 'DELETED', obj, cur.object);
      end if;
    end if;
    last_rv := rv;
    outcome := 'ok'; resource_version := rv; object := obj::text;
    return next;
  end loop;
  if last_rv > 0 then
    perform pg_notify('kube_changes', last_rv::text);
  end if;
end
$fn$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function if exists kube_write_batch(jsonb)`.execute(db);
}
