//! Why a room request was refused: a message for a person, and the kind of refusal that the
//! HTTP side (`http/error.rs`) maps to a status.

/// Why a room request was refused.
#[derive(Debug, thiserror::Error)]
pub enum RoomError {
    /// Bad input: the field and what is wrong with it.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    #[error("no room has the code {0:?}: check the code on the projector")]
    NoRoom(String),
    /// A missing or wrong token or secret.
    #[error("{0}")]
    Unauthorized(String),
    /// The request does not fit the room's state (the race has not started, …).
    #[error("{0}")]
    Conflict(String),
    #[error("slow down: {0}")]
    TooMany(String),
    /// Redis is down or unreachable, for the Redis defence.
    #[error("{0}")]
    Unavailable(String),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("internal: {0}")]
    Internal(String),
}

impl RoomError {
    pub fn invalid(field: &str, message: impl Into<String>) -> RoomError {
        RoomError::Invalid {
            field: field.to_string(),
            message: message.into(),
        }
    }
}
