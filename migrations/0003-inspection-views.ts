import { sql, type Kysely } from 'kysely';

/** Views for people who look at the state with psql; the server itself never reads them. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create view api_objects as
    select object->>'apiVersion' as api_version,
           object->>'kind' as kind,
           namespace,
           name,
           resource_version,
           (object->'metadata'->>'creationTimestamp')::timestamptz as created_at,
           object->'metadata'->>'deletionTimestamp' is not null as terminating,
           object->'metadata'->'labels' as labels,
           object
      from objects`.execute(db);
  await sql`
    create view recent_changes as
    select resource_version, recorded_at, event_type, object->>'kind' as kind, namespace, name
      from history
     order by resource_version desc`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view if exists recent_changes`.execute(db);
  await sql`drop view if exists api_objects`.execute(db);
}
