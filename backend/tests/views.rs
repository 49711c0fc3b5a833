//! `backend views`: the model's view of every step, as the browser tests read it.

use std::process::Command;

use serde_json::Value;

fn views(args: &[&str]) -> (bool, Vec<Value>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_backend"))
        .arg("views")
        .args(args)
        .output()
        .expect("the backend binary runs");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    (
        out.status.success(),
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn views_prints_every_step_of_every_builtin_with_its_phones_seats_and_verdict() {
    let (ok, lines, err) = views(&[]);
    assert!(ok, "{err}");
    let builtins = shared::scenarios::all();
    for b in &builtins {
        let steps: Vec<&Value> = lines.iter().filter(|l| l["scenario"] == b.id).collect();
        assert!(steps.len() >= 2, "{}: {} steps", b.id, steps.len());
        assert_eq!(steps[0]["step"], 0);
        assert_eq!(steps[0]["verdict"]["decided"], false, "{}", b.id);
        let last = steps.last().unwrap();
        assert_eq!(last["verdict"]["decided"], true, "{}", b.id);
        assert!(last["link"].as_str().unwrap().starts_with("/chapter/"));
        for s in &steps {
            assert!(!s["phones"].as_array().unwrap().is_empty(), "{}", b.id);
            // A username draws the name's picture instead of a seat map.
            let drawn = !s["seats"].as_array().unwrap().is_empty() || s["name"].is_object();
            assert!(drawn, "{}", b.id);
        }
    }
    let late = lines
        .iter()
        .rfind(|l| l["scenario"] == "ch3-now-transaction")
        .unwrap();
    assert!(late["verdict"]["headline"]
        .as_str()
        .unwrap()
        .starts_with("Booked too late"));
    assert_eq!(late["verdict"]["bad"], true);
    let names: Vec<&str> = late["phones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a"], "the admin and the clock get no phone");
}

#[test]
fn views_prints_every_counter_builtin_with_every_fitting_defence_on_both_databases_in_its_words() {
    use shared::schedule::Database;
    let (ok, lines, err) = views(&[]);
    assert!(ok, "{err}");
    let mut steps = 0;
    for b in shared::scenarios::all() {
        let kind = b.schedule().scenario().kind;
        if !kind.is_counter() {
            continue;
        }
        for d in shared::Defence::ALL.into_iter().filter(|d| d.fits(kind)) {
            for db in Database::ALL {
                let id = format!("{} with {d} on {}", b.id, db.id());
                let own = b.file.actors == b.file_with_defence(Some(d)).actors
                    && db == Database::Postgresql;
                let id = if own { b.id.to_string() } else { id };
                let mine: Vec<&Value> = lines.iter().filter(|l| l["scenario"] == id).collect();
                assert!(mine.len() >= 2, "{id}: {} steps", mine.len());
                for l in mine {
                    steps += 1;
                    let mut said: Vec<String> = vec![
                        l["reason"].as_str().unwrap().to_string(),
                        l["verdict"]["headline"].as_str().unwrap().to_string(),
                    ];
                    said.extend(
                        l["verdict"]["story"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|s| s.as_str().unwrap().to_string()),
                    );
                    said.extend(
                        l["phones"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|p| p["text"].as_str().unwrap().to_string()),
                    );
                    for s in said {
                        let lower = s.to_lowercase();
                        assert!(
                            !lower.contains("seat")
                                && !s.contains("BOOKED")
                                && !s.contains("AVAILABLE"),
                            "{id} at step {}: {s:?} speaks of seats",
                            l["step"]
                        );
                    }
                }
            }
        }
    }
    assert!(steps > 800, "{steps} steps");
}

#[test]
fn views_of_a_file_that_is_not_a_schedule_names_it_and_exits_two() {
    let path = std::env::temp_dir().join(format!("lastseat-views-{}.json", std::process::id()));
    std::fs::write(&path, "{ \"version\": 1 }").unwrap();
    let (ok, lines, err) = views(&[path.to_str().unwrap()]);
    assert!(!ok && lines.is_empty());
    assert!(err.contains("invalid schedule"), "{err}");
}

#[test]
fn views_prints_the_username_builtin_with_every_fitting_defence_in_its_words_and_its_picture() {
    use shared::schedule::{Database, Shape};
    let (ok, lines, err) = views(&[]);
    assert!(ok, "{err}");
    let b = shared::scenarios::get("shapes-username").expect("the username built-in");
    let mut steps = 0;
    let mut twice = 0;
    for d in shared::Defence::ALL
        .into_iter()
        .filter(|d| d.fits(Shape::Username))
    {
        for db in Database::ALL {
            let own =
                b.file.actors == b.file_with_defence(Some(d)).actors && db == Database::Postgresql;
            let id = if own {
                b.id.to_string()
            } else {
                format!("{} with {d} on {}", b.id, db.id())
            };
            let mine: Vec<&Value> = lines.iter().filter(|l| l["scenario"] == id).collect();
            assert!(mine.len() >= 2, "{id}: {} steps", mine.len());
            for l in mine {
                steps += 1;
                assert_eq!(l["seats"], serde_json::json!([]), "{id}: no seat map");
                let name = &l["name"];
                assert_eq!(name["id"], "batman", "{id}: the name's picture");
                twice += usize::from(name["state"] == "over");
                let mut said = vec![
                    l["reason"].as_str().unwrap().to_string(),
                    l["verdict"]["headline"].as_str().unwrap().to_string(),
                    name["sentence"].as_str().unwrap().to_string(),
                ];
                for s in l["verdict"]["story"].as_array().unwrap() {
                    said.push(s.as_str().unwrap().to_string());
                }
                for p in l["phones"].as_array().unwrap() {
                    said.push(p["text"].as_str().unwrap().to_string());
                }
                for s in said {
                    let lower = s.to_lowercase();
                    for w in ["seat", "booked", "ticket", "sold", " hold", "held"] {
                        assert!(
                            !lower.contains(w),
                            "{id} at step {}: {s:?} says {w:?}",
                            l["step"]
                        );
                    }
                }
            }
        }
    }
    assert!(
        steps > 100 && twice > 0,
        "{steps} steps, {twice} created twice"
    );
}
