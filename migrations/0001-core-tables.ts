import { sql, type Kysely } from 'kysely';

/**
 * The store: current objects, the change history, one global resourceVersion sequence,
 * and the write function every API write goes through (see 0002).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence resource_version_seq as bigint start 1`.execute(db);

  // Keyset order is (namespace, name) in the "C" collation, like etcd's byte order.
  await sql`
    create table objects (
      api_group text not null collate "C",
      resource text not null collate "C",
      namespace text not null collate "C" default '',
      name text not null collate "C",
      uid uuid not null,
      resource_version bigint not null,
      object jsonb not null,
      primary key (api_group, resource, namespace, name)
    )`.execute(db);
  await sql`create index objects_labels on objects using gin ((object -> 'metadata' -> 'labels'))`.execute(db);

  await sql`
    create table history (
      resource_version bigint primary key,
      api_group text not null collate "C",
      resource text not null collate "C",
      namespace text not null collate "C",
      name text not null collate "C",
      event_type text not null check (event_type in ('ADDED', 'MODIFIED', 'DELETED')),
      object jsonb not null,
      previous jsonb,
      recorded_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index history_by_key on history (api_group, resource, namespace, name, resource_version)`.execute(db);

  // The oldest resourceVersion still answerable from history: watches and exact lists below it get 410.
  await sql`
    create table compaction (
      id int primary key default 1 check (id = 1),
      compacted_resource_version bigint not null,
      compacted_at timestamptz not null default now()
    )`.execute(db);
  await sql`insert into compaction (compacted_resource_version) values (0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists compaction`.execute(db);
  await sql`drop table if exists history`.execute(db);
  await sql`drop table if exists objects`.execute(db);
  await sql`drop sequence if exists resource_version_seq`.execute(db);
}
