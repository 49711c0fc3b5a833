//! Who holds a lock whose transaction has no id. MariaDB 10.11 gives a transaction an id only
//! when it writes or takes an exclusive lock: one that has only read in share mode (a plain
//! SELECT under SERIALIZABLE) shows as trx_id 0 in INFORMATION_SCHEMA.INNODB_TRX and as
//! blocking_trx_id 0 in INNODB_LOCK_WAITS, so that a join on the id names every such
//! transaction of the server as the blocker. The lock's id there ("0:space:page:heap") names
//! its record; `SHOW ENGINE INNODB STATUS` (with innodb_status_output_locks on) lists each
//! transaction's thread and the records it locks, which tells them apart.

use sqlx::mysql::MySqlConnection;
use sqlx::Row;

use crate::executor::ExecError;

/// A record: (space, page, heap number), as a lock id after its transaction's id names it.
pub(super) type Record = (u64, u64, u64);

/// The record of a lock id "trx:space:page:heap" (a record lock's), or `None` (a table lock's).
pub(super) fn record_of(lock_id: &str) -> Option<Record> {
    let mut parts = lock_id.split(':').skip(1).map(|p| p.parse::<u64>().ok());
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(Some(s)), Some(Some(p)), Some(Some(h)), None) => Some((s, p, h)),
        _ => None,
    }
}

/// Each transaction without an id: its thread and the records it holds or waits for a lock on.
pub(super) async fn without_id(
    conn: &mut MySqlConnection,
) -> Result<Vec<(i64, Vec<Record>)>, ExecError> {
    sqlx::query("set global innodb_status_output_locks = on")
        .execute(&mut *conn)
        .await?;
    let row = sqlx::query("show engine innodb status")
        .fetch_one(&mut *conn)
        .await?;
    let status: String = row.try_get(2)?;
    Ok(parse(&status))
}

/// The transactions without an id ("---TRANSACTION (0x…)" blocks) in a status text.
fn parse(status: &str) -> Vec<(i64, Vec<Record>)> {
    let mut found: Vec<(i64, Vec<Record>)> = Vec::new();
    // The block's transaction has no id; its thread; the page of its lock struct being listed.
    let (mut anonymous, mut thread, mut page) = (false, None::<i64>, None::<(u64, u64)>);
    for line in status.lines() {
        if let Some(rest) = line.strip_prefix("---TRANSACTION ") {
            anonymous = rest.starts_with('(');
            thread = None;
            page = None;
        } else if !anonymous {
            continue;
        } else if let Some(rest) = line.strip_prefix("MariaDB thread id ") {
            thread = rest.split(',').next().and_then(|t| t.trim().parse().ok());
            if let Some(t) = thread {
                found.push((t, Vec::new()));
            }
        } else if let Some(rest) = line.strip_prefix("RECORD LOCKS space id ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            page = match (words.first(), words.get(3)) {
                (Some(s), Some(p)) => s.parse().ok().zip(p.parse().ok()),
                _ => None,
            };
        } else if line.starts_with("TABLE LOCK") {
            page = None;
        } else if let Some(rest) = line.strip_prefix("Record lock, heap no ") {
            let heap = rest.split_whitespace().next().and_then(|h| h.parse().ok());
            if let (Some((s, p)), Some(h), Some((t, records))) = (page, heap, found.last_mut()) {
                if Some(*t) == thread {
                    records.push((s, p, h));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transaction_without_an_id_is_read_with_its_thread_and_records() {
        let status = "---TRANSACTION 487288, ACTIVE 1 sec starting index read
mysql tables in use 1, locked 1
MariaDB thread id 55938, OS thread handle 1, query id 1 localhost root Updating
RECORD LOCKS space id 59042 page no 3 n bits 320 index PRIMARY of table `test`.`t1` trx id 487288 lock_mode X locks rec but not gap waiting
Record lock, heap no 2 PHYSICAL RECORD: n_fields 5; compact format; info bits 0
---TRANSACTION (0x7f60cc8eda80), ACTIVE 1 sec
2 lock struct(s), heap size 1128, 1 row lock(s)
MariaDB thread id 55936, OS thread handle 1, query id 2 localhost root
TABLE LOCK table `test`.`t1` trx id 0 lock mode IS
RECORD LOCKS space id 59042 page no 3 n bits 320 index PRIMARY of table `test`.`t1` trx id 0 lock mode S locks rec but not gap
Record lock, heap no 2 PHYSICAL RECORD: n_fields 5; compact format; info bits 0
Record lock, heap no 4 PHYSICAL RECORD: n_fields 5; compact format; info bits 0
---TRANSACTION (0x7f60cc8ec480), ACTIVE 1 sec
MariaDB thread id 55937, OS thread handle 1, query id 3 localhost root
";
        assert_eq!(
            parse(status),
            vec![(55936, vec![(59042, 3, 2), (59042, 3, 4)]), (55937, vec![])]
        );
        assert_eq!(record_of("0:59042:3:2"), Some((59042, 3, 2)));
        assert_eq!(record_of("0:59042"), None);
    }
}
