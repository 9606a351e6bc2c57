import { sql, type Kysely } from 'kysely';
import * as writeFunction from './0002-write-function.ts';

/**
 * Rows the server did not write itself. Every API write goes through kube_write_batch, whose objects
 * passed the server's decoding and validation; a row changed any other way (an UPDATE or INSERT typed
 * into psql, a restore script) may not be an object of its kind any more. Such rows are marked, so
 * that reads check them (and only them) before serving them: the marking costs nothing on the read
 * path of sound rows, and a marked row that does not decode is reported as a corrupt object
 * (src/storage/read-check.ts) instead of breaking lists and clients.
 *
 * - objects.written_outside: set by a trigger on every insert or update not made by kube_write_batch
 *   (which says so in a transaction-local setting); cleared when the server rewrites the row.
 * - history.unreadable: the decoder's complaint, on the DELETED change of an object that could not be
 *   read (an unsafe delete): watchers get an error instead of an object that does not decode.
 * - kube_write_batch: sets the setting, clears the mark on update, records `unreadable` from the op,
 *   and deletes a row that is not an object (or has no metadata object) without failing the batch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table objects add column written_outside boolean not null default false`.execute(db);
  // Partial: it holds only marked rows (normally none), so asking for them costs an empty index probe.
  await sql`create index objects_written_outside on objects (api_group, resource, namespace, name) where written_outside`.execute(db);
  await sql`alter table history add column unreadable text`.execute(db);

  await sql`
create function kube_mark_written_outside()
returns trigger
language plpgsql as $fn$
begin
  new.written_outside := true;
  return new;
end
$fn$`.execute(db);
  // The WHEN clause is evaluated without calling the function: the server's own writes pay for one
  // setting lookup per row, nothing more.
  await sql`
create trigger objects_written_outside
  before insert or update on objects
  for each row
  when (current_setting('kube.server_write', true) is distinct from 'on')
  execute function kube_mark_written_outside()`.execute(db);

  await sql`
create or replace function kube_write_batch(ops jsonb)
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
  -- Rows written here are the server's own (see the trigger objects_written_outside).
  perform set_config('kube.server_write', 'on', true);
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
        update objects o set resource_version = rv, object = obj, written_outside = false
         where o.api_group = op->>'g' and o.resource = op->>'r'
           and o.namespace = op->>'ns' and o.name = op->>'n';
        insert into history (resource_version, api_group, resource, namespace, name, event_type, object, previous)
        values (rv, op->>'g', op->>'r', op->>'ns', op->>'n', 'MODIFIED', obj, cur.object);
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
  await writeFunction.up(db);
  await sql`drop trigger if exists objects_written_outside on objects`.execute(db);
  await sql`drop function if exists kube_mark_written_outside()`.execute(db);
  await sql`alter table history drop column if exists unreadable`.execute(db);
  await sql`drop index if exists objects_written_outside`.execute(db);
  await sql`alter table objects drop column if exists written_outside`.execute(db);
}
