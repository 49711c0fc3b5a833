//! A username scenario: what its file may say, and what it may not (each refusal names the
//! field and says why); the defences that apply to it.

use shared::defences::Defence;
use shared::schedule::Shape;
use shared::Schedule;

// Only its `error_of` is used here.
#[allow(dead_code)]
mod parse;

use parse::error_of;

fn file(rows: &str, extra: &str, actors: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "t", "scenario": {{"kind": "username", {extra} "seats": {rows}}}, "actors": {actors}}}"#
    )
}

const TWO: &str =
    r#"{"adam": {"defence": "check_then_act"}, "omar": {"defence": "check_then_act"}}"#;

#[test]
fn a_free_name_is_written_with_its_value_0_and_reads_back() {
    let s = Schedule::parse_json(&file(r#"[{"id": "batman"}]"#, "", TWO)).unwrap();
    assert_eq!(s.scenario().seats[0].value, Some(0));
    assert_eq!(s.scenario().capacity(0), 1);
    let again = serde_json::to_string(&s.to_file()).unwrap();
    assert!(again.contains(r#""value":0"#), "{again}");
    let taken = Schedule::parse_json(&file(r#"[{"id": "batman", "value": 1}]"#, "", TWO)).unwrap();
    assert_eq!(taken.scenario().capacity(0), 0);
}

#[test]
fn a_value_other_than_0_or_1_is_refused_on_its_field() {
    let (field, message) = error_of(&file(r#"[{"id": "batman", "value": 2}]"#, "", TWO));
    assert_eq!(field, "scenario.seats[0].value");
    assert!(
        message.contains("1 if an account already has it"),
        "{message}"
    );
}

#[test]
fn a_take_other_than_1_is_refused() {
    let (field, message) = error_of(&file(r#"[{"id": "batman"}]"#, r#""take": 2,"#, TWO));
    assert_eq!(field, "scenario.take");
    assert!(message.contains("one account"), "{message}");
}

#[test]
fn a_seats_status_on_a_name_is_refused() {
    let (field, message) = error_of(&file(
        r#"[{"id": "batman", "status": "BOOKED", "holder": "adam"}]"#,
        "",
        TWO,
    ));
    assert_eq!(field, "scenario.seats[0]");
    assert!(message.contains("free or taken"), "{message}");
}

#[test]
fn two_names_are_refused() {
    let (field, message) = error_of(&file(r#"[{"id": "batman"}, {"id": "robin"}]"#, "", TWO));
    assert_eq!(field, "scenario.seats");
    assert!(message.contains("one name"), "{message}");
}

#[test]
fn a_lock_that_does_not_wait_and_a_hold_are_refused_on_their_op() {
    let actors = r#"{"adam": [{"op": "begin"}, {"op": "lock", "seats": ["batman"], "wait": "nowait"}, {"op": "commit"}]}"#;
    let (field, message) = error_of(&file(r#"[{"id": "batman"}]"#, "", actors));
    assert_eq!(field, "actors.adam[1].op");
    assert!(message.contains("without waiting"), "{message}");
    let actors = r#"{"adam": [{"op": "hold", "seats": ["batman"]}]}"#;
    let (field, _) = error_of(&file(r#"[{"id": "batman"}]"#, "", actors));
    assert_eq!(field, "actors.adam[0].op");
}

#[test]
fn the_defences_that_fit_a_username_and_those_refused_with_their_field() {
    let fitting: Vec<&str> = Defence::ALL
        .into_iter()
        .filter(|d| d.fits(Shape::Username))
        .map(|d| d.id())
        .collect();
    assert_eq!(
        fitting,
        [
            "check_then_act",
            "transaction",
            "repeatable_read",
            "serializable",
            "atomic_update",
            "lock_row",
            "repeatable_read_retry",
            "serializable_retry",
            "unique_constraint"
        ]
    );
    for refused in ["lock_nowait", "skip_locked", "hold_confirm", "redis_hold"] {
        let actors = format!(r#"{{"adam": {{"defence": "{refused}"}}}}"#);
        let (field, message) = error_of(&file(r#"[{"id": "batman"}]"#, "", &actors));
        assert_eq!(field, "actors.adam.defence", "{refused}");
        assert!(message.contains("username"), "{message}");
    }
}

#[test]
fn nothing_that_shows_or_exports_a_username_race_panics() {
    use shared::schedule::Database;
    use shared::{engine, explain, explorer, export, view};
    for defence in Defence::ALL.into_iter().filter(|d| d.fits(Shape::Username)) {
        for taken in [false, true] {
            let mut file = username_file(defence);
            file.scenario.seats[0].value = Some(i64::from(taken));
            for database in [Database::Postgresql, Database::Innodb] {
                let s = Schedule::parse(file.clone()).unwrap().on(database).unwrap();
                let (orders, _) = explorer::orders(&s, 40);
                for order in orders {
                    let s = s.with_order(order);
                    let outcome = shared::assess::assess(&s, engine::simulate(&s).unwrap());
                    let _ = explain::headline(&s, &outcome);
                    let _ = explain::verdict_story(&s, &outcome);
                    let _ = explain::story_events(&s, &outcome);
                    let _ = explain::consequences(&s, &outcome);
                    let _ = export::fixture_json(&s, &outcome);
                    let _ = export::entry_sql(&s, &outcome);
                    match database {
                        Database::Postgresql => {
                            let _ = export::psql_scripts(&s, &outcome);
                            let _ = export::isolation_spec(&s, &outcome);
                        }
                        Database::Innodb => {
                            let _ = export::mysql_scripts(&s, &outcome);
                        }
                    }
                    for step in 0..=s.order().len() {
                        let _ = view::phones(&s, &outcome, step);
                        let _ = view::map_at(&s, &outcome, step);
                        let _ = view::name_at(&s, &outcome, step);
                    }
                }
            }
        }
    }
}

/// The username built-in (`shared/scenarios/shapes-username.json`, chapter 6) with every
/// buyer running `defence`, in the order of one entry of each buyer in turn.
fn username_file(defence: Defence) -> shared::schedule::ScheduleFile {
    shared::scenarios::get("shapes-username")
        .expect("the username built-in")
        .file_with_defence(Some(defence))
}

#[test]
fn the_scripts_seed_the_name_and_never_a_seat() {
    use shared::schedule::Database;
    use shared::{engine, export};
    for taken in [false, true] {
        let mut file = username_file(Defence::UniqueConstraint);
        file.scenario.seats[0].value = Some(i64::from(taken));
        for database in [Database::Postgresql, Database::Innodb] {
            let s = Schedule::parse(file.clone()).unwrap().on(database).unwrap();
            let outcome = shared::assess::assess(&s, engine::simulate(&s).unwrap());
            let scripts = match database {
                Database::Postgresql => export::psql_scripts(&s, &outcome),
                Database::Innodb => export::mysql_scripts(&s, &outcome),
            };
            let all: String = scripts.iter().map(|(_, text)| text.as_str()).collect();
            assert!(
                !all.contains("insert into show_seats"),
                "{database:?}: a seat is seeded"
            );
            assert!(
                !all.to_lowercase().contains("ticket for"),
                "{database:?}: {all}"
            );
            assert_eq!(
                all.contains("insert into users (username, created_by)"),
                taken,
                "{database:?} taken={taken}: the first account is seeded only for a taken name"
            );
            assert!(all.contains("The scenario's username: batman"), "{all}");
            assert!(
                all.contains("claims batman in usernames, whose key allows one"),
                "{all}"
            );
        }
    }
}
