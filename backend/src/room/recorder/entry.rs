//! A request's record as the recorder takes it: its operations, how its phone's told seats
//! change, the payment left and the lease it frees.

/// One request's record: its operations, what its phone was told, and its participant freed.
#[derive(Clone, Debug)]
pub struct Entry {
    pub code: String,
    pub round: i32,
    pub n: i32,
    pub actor: String,
    pub ops: Vec<Op>,
    /// How the phone's told seats change (`record::told`).
    pub told: Told,
    /// The payment left, as the JSON of its ops.
    pub pending: String,
    /// The lease the request took (`attempt/begin.rs`): freed, with the payment left, only if
    /// the participant still holds it.
    pub lease: i64,
}

/// How a request changes the seats its phone was told it has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Told {
    /// These seats, booked, or held until a second of the round's clock.
    Hold {
        seats: Vec<String>,
        booked: bool,
        until: Option<i64>,
    },
    /// The seats held are paid for: booked.
    Paid,
    /// The phone holds nothing any more.
    Forget,
    /// Nothing changed.
    Unchanged,
}

/// One operation as recorded: its index, the op (JSON), the SQL sent, the result and the rows
/// seen (JSON), the clock, when it was sent (seconds since the epoch) and how long it took.
#[derive(Clone, Debug)]
pub struct Op {
    pub index: i32,
    pub op: String,
    pub sql: Option<String>,
    pub result: String,
    pub seen: String,
    pub clock: i64,
    pub sent: f64,
    pub took_ms: f64,
}
