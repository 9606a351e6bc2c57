import { sql, type Kysely } from 'kysely';

/**
 * kube_write_batch doing less per write (same signature, same rows written, same guarantees as 0004):
 *
 * - A successful create or update returns only its resourceVersion (object null): the server already
 *   holds the object it sent and puts the version in itself, so echoing ~1 KiB of jsonb back as text
 *   per write was PostgreSQL output work, wire bytes and pg parsing for nothing. A delete still
 *   returns the deleted object (the server answers with it and did not send it). A server that
 *   predates this migration falls back to encoding the object it sent when none comes back.
 * - The namespace of a create is read once per batch and namespace (a batch is mostly creates in a
 *   few namespaces), not once per create. Any write of a namespace in the batch forgets what was
 *   read, so a create after a namespace's deletion in the same batch still sees it.
 * - A create is one INSERT … ON CONFLICT DO NOTHING instead of a SELECT … FOR UPDATE and an INSERT
 *   (an existing object is read only when the insert finds it). The resourceVersion is drawn before
 *   the insert, so a create that finds its object already there leaves a gap in the sequence; gaps
 *   were always possible (rolled-back batches) and nothing reads versions as contiguous.
 *
 * Outcomes keep their precedence: a create of an existing object is `exists`, even in a missing or
 * terminating namespace.
 *
 * 0004's function is kept under another name (never called) so that down restores it exactly.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter function kube_write_batch(jsonb) rename to kube_write_batch_0004`.execute(db);
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
  -- The namespace last read for a create's gate and what it said ('ok' or the refusal).
  gate_ns text := null;
  gate text;
  last_rv bigint := 0;
begin
  -- Rows written here are the server's own (see the trigger objects_written_outside).
  perform set_config('kube.server_write', 'on', true);
  perform pg_advisory_xact_lock(7158325001);
  for op in select value from jsonb_array_elements(ops) loop
    i := i + 1;
    idx := i;

    if op->>'op' = 'create' then
      if (op->>'nsgate')::boolean then
        if gate_ns is distinct from op->>'ns' then
          select o.object into ns_obj from objects o
           where o.api_group = '' and o.resource = 'namespaces' and o.namespace = '' and o.name = op->>'ns';
          gate_ns := op->>'ns';
          gate := case
            when ns_obj is null then 'namespace_missing'
            when ns_obj->'metadata' ? 'deletionTimestamp' then 'namespace_terminating'
            else 'ok' end;
        end if;
        if gate <> 'ok' then
          select o.resource_version as rv, o.object into cur from objects o
           where o.api_group = op->>'g' and o.resource = op->>'r'
             and o.namespace = op->>'ns' and o.name = op->>'n';
          if found then
            outcome := 'exists'; resource_version := cur.rv; object := cur.object::text;
          else
            outcome := gate; resource_version := null;
            object := case when gate = 'namespace_terminating' then ns_obj::text end;
          end if;
          return next; continue;
        end if;
      end if;
      rv := nextval('resource_version_seq');
      obj := jsonb_set(op->'object', '{metadata,resourceVersion}', to_jsonb(rv::text));
      insert into objects (api_group, resource, namespace, name, uid, resource_version, object)
      values (op->>'g', op->>'r', op->>'ns', op->>'n', (obj->'metadata'->>'uid')::uuid, rv, obj)
      on conflict do nothing;
      if not found then
        select o.resource_version as rv, o.object into cur from objects o
         where o.api_group = op->>'g' and o.resource = op->>'r'
           and o.namespace = op->>'ns' and o.name = op->>'n';
        outcome := 'exists'; resource_version := cur.rv; object := cur.object::text;
        return next; continue;
      end if;
      insert into history (resource_version, api_group, resource, namespace, name, event_type, object, previous)
      values (rv, op->>'g', op->>'r', op->>'ns', op->>'n', 'ADDED', obj, null);
      object := null;
    else
      select o.resource_version as rv, o.uid, o.object
        into cur
        from objects o
       where o.api_group = op->>'g' and o.resource = op->>'r'
         and o.namespace = op->>'ns' and o.name = op->>'n'
         for update;
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
        update objects o set resource_version = rv, object = obj, written_outside = false
         where o.api_group = op->>'g' and o.resource = op->>'r'
           and o.namespace = op->>'ns' and o.name = op->>'n';
        insert into history (resource_version, api_group, resource, namespace, name, event_type, object, previous)
        values (rv, op->>'g', op->>'r', op->>'ns', op->>'n', 'MODIFIED', obj, cur.object);
        object := null;
      else
        -- The deleted object carries the version of its deletion, as watchers expect; a stored value
        -- that is no object with a metadata object (a corrupt row) is recorded as it was.
        if jsonb_typeof(cur.object) = 'object' and jsonb_typeof(cur.object->'metadata') = 'object' then
          obj := jsonb_set(cur.object, '{metadata,resourceVersion}', to_jsonb(rv::text));
        else
          obj := cur.object;
        end if;
        delete from objects o
         where o.api_group = op->>'g' and o.resource = op->>'r'
           and o.namespace = op->>'ns' and o.name = op->>'n';
        insert into history (resource_version, api_group, resource, namespace, name, event_type, object, previous, unreadable)
        values (rv, op->>'g', op->>'r', op->>'ns', op->>'n', 'DELETED', obj, cur.object, op->>'unreadable');
        object := obj::text;
      end if;
      -- A namespace written in this batch (its deletion, say) is read again by the next gated create.
      if op->>'g' = '' and op->>'r' = 'namespaces' then
        gate_ns := null;
      end if;
    end if;
    last_rv := rv;
    outcome := 'ok'; resource_version := rv;
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
  await sql`alter function kube_write_batch_0004(jsonb) rename to kube_write_batch`.execute(db);
}
