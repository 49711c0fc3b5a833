//! The run schemas a test finds left behind: every run schema but the ready ones, which the
//! executor keeps for the next run (their lock is held by their own connection, idle between
//! runs) and drops at its shutdown or, once their process or server is gone, the sweep does.

/// The run schemas named `like $1` that no idle session holds the lock (`$2`, the executor's
/// `SCHEMA_LOCK_CLASS`) of: those of runs under way, and those left behind.
pub const LEFT_BEHIND: &str = "select n.nspname::text from pg_namespace n
  where n.nspname like $1
    and not exists (select from pg_locks l join pg_stat_activity a on a.pid = l.pid
                     where l.locktype = 'advisory' and l.granted
                       and l.classid = $2::int4::oid and l.objsubid = 2
                       and l.objid = hashtext(n.nspname)::oid and a.state = 'idle')
  order by 1";
