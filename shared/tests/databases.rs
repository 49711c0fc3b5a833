//! Both databases from the reader's side: a link that keeps the database, the same order side
//! by side (`explain::contrast`), the claim table that the README carries, and the mysql
//! client's scripts of every built-in on InnoDB.

#[allow(dead_code)]
mod common;

use shared::assess::assess;
use shared::claim::{families, markdown};
use shared::engine::simulate;
use shared::explain::contrast;
use shared::export::{self, entry_sql, mysql_scripts};
use shared::link::{decode, encode, View};
use shared::scenarios;
use shared::schedule::{Database, Schedule};
use shared::{Defence, Outcome};

fn run(schedule: &Schedule) -> Outcome {
    assess(schedule, simulate(schedule).expect("the order runs"))
}

/// Chapter 4's race under the repeatable-read defence, on `database`.
fn repeatable_read(database: Database) -> Schedule {
    let b = scenarios::get("ch4-check_then_act").expect("a built-in");
    Schedule::parse(b.file_with_defence(Some(Defence::RepeatableRead)))
        .and_then(|s| s.on(database))
        .expect("a schedule")
}

#[test]
fn a_link_keeps_the_database_and_an_unknown_one_is_refused_with_the_fix() {
    let s = repeatable_read(Database::Innodb);
    let view = View::of(
        4,
        "ch4-check_then_act",
        Some(Defence::RepeatableRead),
        &s,
        2,
    );
    let token = encode(&view);
    assert!(token.ends_with(".innodb"), "{token}");
    let back = decode(&token).expect("the link opens");
    assert_eq!(back.database, Database::Innodb);
    assert_eq!(
        back.schedule().expect("a schedule").database(),
        Database::Innodb
    );
    let pg = View::of(
        4,
        "ch4-check_then_act",
        None,
        &repeatable_read(Database::Postgresql),
        0,
    );
    assert!(!encode(&pg).contains("innodb"));
    let wrong = token.replace(".innodb", ".oracle");
    let why = decode(&wrong).expect_err("refused").to_string();
    assert!(why.contains("oracle") && why.contains("innodb"), "{why}");
}

#[test]
fn repeatable_read_parts_at_the_second_write_and_each_side_gives_its_own_reason() {
    let s = repeatable_read(Database::Postgresql);
    let c = contrast(&s);
    assert_eq!(c.sides[0].database, Database::Postgresql);
    assert_eq!(c.sides[1].database, Database::Innodb);
    assert!(c.sides.iter().all(|side| side.runs));
    assert!(c.sides[0].problems.is_empty(), "{:?}", c.sides[0]);
    assert!(
        c.sides[1].problems.iter().any(|p| p == "double booked"),
        "{:?}",
        c.sides[1]
    );
    let d = c.divergence.expect("they part");
    let (pg, inno) = (run(&s), run(&s.on(Database::Innodb).expect("on InnoDB")));
    assert_eq!(d.steps[0], pg.entries[d.entry].step);
    assert_eq!(d.steps[1], inno.entries[d.entry].step);
    // Omar's write waited on both: the reasons are those of the entry that let it go on.
    let decided = |o: &Outcome| {
        let at = o.entries[d.entry]
            .trace
            .completed_after
            .expect("it completed");
        o.entries[at].trace.reason.clone()
    };
    assert_eq!(d.reasons[0], decided(&pg));
    assert_eq!(d.reasons[1], decided(&inno));
    assert!(d.reasons[0].contains("40001"), "{}", d.reasons[0]);
    assert!(!d.reasons[1].contains("40001"), "{}", d.reasons[1]);
    eprintln!("PostgreSQL: {}\nInnoDB: {}", d.reasons[0], d.reasons[1]);
    // Every entry before the parting is answered alike.
    for k in 0..d.entry {
        assert_eq!(pg.entries[k].step, inno.entries[k].step, "entry {k}");
    }
}

#[test]
fn the_readme_carries_the_claim_table_the_models_give() {
    let table = markdown(&families());
    let readme = include_str!("../../README.md");
    assert!(
        readme.contains(&table),
        "README.md's claim table is out of date: replace it with `cargo run -p backend -- claim`'s output:\n{table}"
    );
    let f = families();
    assert!(f.iter().any(|f| f.holds()), "somewhere the claim holds");
    assert!(f.iter().any(|f| !f.holds()), "somewhere it does not");
    for family in &f {
        assert_eq!(
            family.same + family.verdict_differs + family.steps_differ + family.cannot_run,
            family.orders,
            "{}",
            family.scenario
        );
        assert_eq!(
            family.example.is_some(),
            !family.holds(),
            "{}",
            family.scenario
        );
    }
}

#[test]
fn every_builtin_on_innodb_exports_mysql_scripts_with_exactly_the_sql_it_sent() {
    let mut exported = 0;
    for b in scenarios::all() {
        let s = b
            .schedule()
            .on(Database::Innodb)
            .unwrap_or_else(|e| panic!("{}: {e:?}", b.id));
        exported += 1;
        let outcome = run(&s);
        let scripts = mysql_scripts(&s, &outcome);
        assert_eq!(scripts[0].0, export::setup_label(&s));
        assert!(
            scripts[0].1.contains("create database `last_seat`"),
            "{}",
            b.id
        );
        assert!(
            !scripts
                .iter()
                .any(|(_, t)| t.contains("$1") || t.contains("::text[]")),
            "{}",
            b.id
        );
        let sql = entry_sql(&s, &outcome);
        for sql in sql.iter().flatten() {
            assert!(!sql.contains('?'), "{}: {sql}", b.id);
        }
        common::scripts::carry_their_sql(b.id, &s, &scripts, &sql);
    }
    assert!(exported > 10, "{exported} built-ins exported on InnoDB");
}
