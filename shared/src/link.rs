//! Every state is a link: the chapter, the scenario, the programs when the reader changed them,
//! the order and the playhead, in a short versioned token that goes into a URL as it is.
//!
//! `1.4.ch4-check_then_act.0101.4` reads: link format 1, chapter 4, the built-in scenario
//! `ch4-check_then_act`, the order adam omar adam omar (indices into the schedule's actors, one
//! base-36 digit per entry) and the playhead after entry 4. Two optional fields may follow: the
//! defence the reader picked, and the whole schedule (base64url JSON) when its scenario or
//! programs differ from what the built-in and that defence give. A seventh, `innodb`, says the
//! view races on InnoDB (the two before it may then be empty). Every field is checked on the
//! way in, and every error says what is wrong and what to do.

use crate::defences::Defence;
use crate::schedule::{Database, ProgramSpec, Schedule, ScheduleFile};
use crate::{engine, scenarios};

mod base64url;
pub mod bundle;
mod error;

pub use error::LinkError;

/// The link format this code writes and reads.
pub const VERSION: u32 = 1;

/// The chapters a link may open.
pub const CHAPTERS: std::ops::RangeInclusive<u8> = 1..=6;

/// The sandbox: it may start from any chapter's scenario.
pub const SANDBOX: u8 = 5;

/// What a link holds.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub chapter: u8,
    /// The built-in scenario the view starts from (an id of `scenarios::all()`).
    pub scenario: String,
    /// The defence the reader picked, if any.
    pub defence: Option<Defence>,
    /// The schedule itself (its order aside) when it differs from the built-in with the
    /// defence switched in; `None` for the common case.
    pub custom: Option<ScheduleFile>,
    /// The order, as indices into the schedule's actors.
    pub order: Vec<usize>,
    /// The playhead: how many entries have run (0 to `order.len()`).
    pub step: usize,
    /// The database it races on.
    pub database: Database,
}

impl View {
    /// The view of `schedule` (its order included) in `chapter`, started from the built-in
    /// `scenario` with `defence` picked. The schedule is stored in the link only when its
    /// scenario or programs differ from what the built-in and the defence give.
    pub fn of(
        chapter: u8,
        scenario: &str,
        defence: Option<Defence>,
        schedule: &Schedule,
        step: usize,
    ) -> View {
        let base = scenarios::get(scenario)
            .and_then(|b| Schedule::parse(b.file_with_defence(defence)).ok());
        let same = base.is_some_and(|base| {
            base.scenario() == schedule.scenario()
                && base.actors().len() == schedule.actors().len()
                && base.actors().iter().zip(schedule.actors()).all(|(a, b)| {
                    a.name == b.name && a.program == b.program && a.conditions == b.conditions
                })
        });
        View {
            chapter,
            scenario: scenario.to_string(),
            defence,
            custom: (!same).then(|| compact_file(schedule)),
            order: schedule.order().to_vec(),
            step,
            database: schedule.database(),
        }
    }

    /// The schedule the view shows, with its order, validated: the scenario and chapter exist,
    /// the programs can run the order to its end, and the playhead is within it.
    pub fn schedule(&self) -> Result<Schedule, LinkError> {
        let builtin = builtin(self.chapter, &self.scenario)?;
        let mut file = match &self.custom {
            Some(file) => file.clone(),
            None => builtin.file_with_defence(self.defence),
        };
        let names: Vec<String> = file.actors.keys().cloned().collect();
        file.order = self
            .order
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                names.get(i).cloned().ok_or(LinkError::NoSuchActor {
                    entry: k,
                    index: i,
                    actors: names.len(),
                })
            })
            .collect::<Result<_, _>>()?;
        // The built-in's expectations were written for its own order.
        file.expect = None;
        file.engine = self.database;
        let mut schedule = Schedule::parse(file).map_err(LinkError::Schedule)?;
        if self.order.is_empty() {
            // An empty order in a file means "one entry of each actor in turn"; here it is empty.
            schedule = schedule.with_order(Vec::new());
        }
        engine::simulate(&schedule).map_err(LinkError::Schedule)?;
        if self.step > self.order.len() {
            return Err(LinkError::StepBeyondOrder {
                step: self.step,
                entries: self.order.len(),
            });
        }
        Ok(schedule)
    }
}

/// The token of `view`: URL-safe as it is (letters, digits, `.`, `-`, `_`).
pub fn encode(view: &View) -> String {
    let order: String = view.order.iter().map(|&i| digit(i)).collect();
    let mut token = format!(
        "{VERSION}.{}.{}.{order}.{}",
        view.chapter, view.scenario, view.step
    );
    let custom = view.custom.as_ref().map(|file| {
        base64url::encode(
            serde_json::to_string(file)
                .expect("schedule files serialise")
                .as_bytes(),
        )
    });
    let innodb = view.database == Database::Innodb;
    if view.defence.is_some() || custom.is_some() || innodb {
        token.push('.');
        token.push_str(view.defence.map_or("", Defence::id));
    }
    if custom.is_some() || innodb {
        token.push('.');
        token.push_str(custom.as_deref().unwrap_or(""));
    }
    if innodb {
        token.push('.');
        token.push_str(Database::Innodb.id());
    }
    token
}

/// The view a token holds, checked field by field and then as a whole (see `View::schedule`).
pub fn decode(token: &str) -> Result<View, LinkError> {
    let token = token.trim();
    let mut fields = token.split('.');
    let version = fields.next().unwrap_or("");
    match version.parse::<u32>() {
        Ok(VERSION) => {}
        Ok(v) if v > VERSION => return Err(LinkError::NewerVersion(v)),
        _ => return Err(LinkError::NotALink),
    }
    let fields: Vec<&str> = fields.collect();
    if fields.len() < 4 {
        return Err(LinkError::Malformed("it is cut short".to_string()));
    }
    if fields.len() > 7 {
        return Err(LinkError::Malformed(
            "it has fields this format does not know".to_string(),
        ));
    }
    let chapter = fields[0]
        .parse::<u8>()
        .map_err(|_| LinkError::NoSuchChapter(fields[0].to_string()))?;
    let scenario = fields[1];
    if scenario.is_empty() {
        return Err(LinkError::Malformed("it names no scenario".to_string()));
    }
    let order = fields[2]
        .chars()
        .map(|c| {
            c.to_digit(36)
                .filter(|_| !c.is_ascii_uppercase())
                .map(|d| d as usize)
                .ok_or_else(|| {
                    LinkError::Malformed(format!("the order has {c:?}, which is not an actor"))
                })
        })
        .collect::<Result<Vec<usize>, _>>()?;
    let step = fields[3].parse::<usize>().map_err(|_| {
        LinkError::Malformed(format!("the playhead {:?} is not a number", fields[3]))
    })?;
    let custom = fields
        .get(5)
        .filter(|text| !text.is_empty())
        .map(|text| read_custom(text))
        .transpose()?;
    let database = match fields.get(6) {
        None => Database::Postgresql,
        Some(&id) => Database::ALL
            .into_iter()
            .find(|d| d.id() == id)
            .ok_or_else(|| LinkError::NoSuchDatabase(id.to_string()))?,
    };
    builtin(chapter, scenario)?;
    let defence = fields
        .get(4)
        .filter(|d| !d.is_empty())
        .map(|d| Defence::parse(d).ok_or_else(|| LinkError::NoSuchDefence(d.to_string())))
        .transpose()?;
    let view = View {
        chapter,
        scenario: scenario.to_string(),
        defence,
        custom,
        order,
        step,
        database,
    };
    view.schedule()?;
    Ok(view)
}

/// The built-in scenario `scenario`, checked to exist and to open in `chapter`.
fn builtin(chapter: u8, scenario: &str) -> Result<scenarios::BuiltIn, LinkError> {
    if !CHAPTERS.contains(&chapter) {
        return Err(LinkError::NoSuchChapter(chapter.to_string()));
    }
    let builtin =
        scenarios::get(scenario).ok_or_else(|| LinkError::NoSuchScenario(scenario.to_string()))?;
    if builtin.chapter != chapter && chapter != SANDBOX {
        return Err(LinkError::WrongChapter {
            scenario: scenario.to_string(),
            chapter,
            belongs: builtin.chapter,
        });
    }
    Ok(builtin)
}

fn read_custom(text: &str) -> Result<ScheduleFile, LinkError> {
    let bytes = base64url::decode(text)
        .ok_or_else(|| LinkError::BadSchedule("it is not base64url".to_string()))?;
    let json = String::from_utf8(bytes)
        .map_err(|_| LinkError::BadSchedule("it is not UTF-8 text".to_string()))?;
    serde_json::from_str(&json).map_err(|e| LinkError::BadSchedule(e.to_string()))
}

/// An actor index as one base-36 digit (the limit of 8 actors leaves room to spare; an index
/// past 35 is written `_`, which decoding refuses).
fn digit(i: usize) -> char {
    u32::try_from(i)
        .ok()
        .and_then(|i| char::from_digit(i, 36))
        .unwrap_or('_')
}

/// The schedule as a file without its order and expectations, each program written as its
/// defence where it is exactly that defence's program, to keep the link short.
fn compact_file(schedule: &Schedule) -> ScheduleFile {
    let mut file = schedule.to_file();
    file.order.clear();
    file.expect = None;
    let first_seat = schedule.scenario().seats.first().map(|s| s.id.clone());
    for actor in schedule.actors() {
        let Some(defence) = actor.defence else {
            continue;
        };
        let Some(seats) = actor
            .program
            .iter()
            .map(|op| op.seats())
            .find(|s| !s.is_empty())
        else {
            continue;
        };
        let (program, conditions) = defence.program(seats);
        if program != actor.program || conditions != actor.conditions {
            continue;
        }
        let default = first_seat.as_slice();
        let seats = (seats != default).then(|| seats.to_vec());
        file.actors.insert(
            actor.name.clone(),
            ProgramSpec::Defence {
                defence: defence.id().to_string(),
                seats,
            },
        );
    }
    file
}
