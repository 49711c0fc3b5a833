//! The InnoDB dialect's statements, their parameters and the migration's cutting.

use super::*;
use crate::schedule::Isolation;

fn cx() -> Context<'static> {
    Context {
        show: 7,
        actor: "ann",
        hold_minutes: 10,
        new_hold_id: "ann:2".into(),
        current_hold: "ann:1".into(),
        tx_clock: 3,
        clock: 5,
    }
}

fn mysql(op: Op) -> String {
    statement(&op, &cx()).expect("sql").to_mysql()
}

#[test]
fn a_list_of_seats_is_one_mark_a_seat_in_key_order() {
    let op = Op::Lock {
        seats: vec!["B1".into(), "A10".into(), "A9".into()],
        wait: Wait::SkipLocked,
    };
    assert_eq!(
        mysql(op),
        "select seat_id, status, holder, held_until from show_seats force index (primary)\n where show_id = 7 and seat_id in ('A10', 'A9', 'B1')\n order by seat_id\n   for update skip locked"
    );
}

#[test]
fn the_clock_is_a_parameter_read_when_the_statement_is_sent() {
    let claim = |now| Op::Claim {
        seats: vec!["A1".into()],
        now: Some(now),
    };
    assert!(mysql(claim(Now::Transaction)).contains("held_until = 3 + 10"));
    assert!(mysql(claim(Now::Evaluation)).contains("held_until < 5))"));
    assert!(mysql(Op::Sweep).ends_with("held_until < 5"));
    let hold = Op::Hold {
        seats: vec!["A2".into(), "A1".into()],
        attempt: None,
        now: None,
    };
    assert_eq!(
        mysql(hold),
        "call hold_seats(7, 'A1,A2', 'ann', 'ann:2', 10, 'evaluation', 5)"
    );
}

#[test]
fn begin_is_two_statements_and_book_one_insert() {
    let begin = Op::Begin {
        isolation: Isolation::RepeatableRead,
    };
    assert_eq!(
        mysql(begin),
        "set transaction isolation level repeatable read;\nstart transaction"
    );
    let book = Op::Book {
        seats: vec!["A2".into(), "A1".into()],
    };
    assert_eq!(
        mysql(book),
        "insert into booking_seats (booking_id, show_id, seat_id, holder)\nvalues ('ann:2', 7, 'A1', 'ann'), ('ann:2', 7, 'A2', 'ann')"
    );
}

#[test]
fn every_statement_has_as_many_marks_as_parameters() {
    let seats = vec!["A1".to_string(), "A2".to_string()];
    let ops = [
        Op::Read {
            seats: seats.clone(),
        },
        Op::Write {
            seats: seats.clone(),
            status: SeatStatus::Held,
        },
        Op::Claim {
            seats: seats.clone(),
            now: None,
        },
        Op::Book {
            seats: seats.clone(),
        },
        Op::Hold {
            seats,
            attempt: None,
            now: None,
        },
        Op::Confirm { now: None },
        Op::Release,
        Op::Advance { minutes: 3 },
        Op::Sweep,
    ];
    for op in ops {
        let st = statement(&op, &cx()).expect("sql");
        assert_eq!(st.sql.matches('?').count(), st.params.len(), "{}", st.sql);
    }
}

#[test]
fn the_migration_cuts_into_statements_at_its_delimiters() {
    let steps = ddl_statements(SCHEMA_DDL);
    assert!(steps.iter().all(|s| !s.contains("delimiter")));
    let procs: Vec<_> = steps
        .iter()
        .filter(|s| s.starts_with("create procedure"))
        .collect();
    assert_eq!(procs.len(), 2);
    assert!(procs.iter().all(|p| p.trim_end().ends_with("end")));
    assert!(steps.iter().any(|s| s.starts_with("insert into clock")));
}

#[test]
fn text_is_quoted_for_mysql() {
    let st = Statement::new(
        "select ?, ?, ?",
        vec![
            Param::Text("o'ne\\il?".into()),
            Param::OptInt(None),
            Param::Int(4),
        ],
    );
    assert_eq!(st.to_mysql(), r"select 'o''ne\\il?', null, 4");
}
