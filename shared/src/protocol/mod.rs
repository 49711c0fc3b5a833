//! What the server and the pages say to each other, as types: the live room's requests, answers
//! and state (`room`), and the envelope every refusal of the API comes in. Serde lives here, on
//! the boundary: the server builds and serialises these, the pages and the tests deserialize
//! them, so that every key is spelled once.

pub mod room;

use serde::{Deserialize, Serialize};

/// The body of every refusal of the API: `{"error": {"field", "message"}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: Refusal,
}

/// Why a request was refused: the field at fault (the body, a header, a key of the body), if one
/// is, and a sentence for a person that says what to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub field: Option<String>,
    pub message: String,
}

impl ErrorBody {
    pub fn new(field: Option<String>, message: String) -> ErrorBody {
        ErrorBody {
            error: Refusal { field, message },
        }
    }
}
