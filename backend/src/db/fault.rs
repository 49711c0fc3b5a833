//! Which database errors are faults, in one place: the server went away, the session was ended,
//! or the connection under it broke. A fault is never an answer to a statement (never a step of
//! a trace, never a disagreement); the executor, its clean-up and the HTTP boundary all ask here.

use std::io::ErrorKind;

/// A database error that is not an answer: the session or the server is gone, or out of reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No connection could be had: nothing listens, the server does not answer, it has no room
    /// for another connection, or the pool is closed or timed out waiting for one.
    Unreachable,
    /// The server ended the session or refuses new ones for now: it is shutting down or
    /// restarting (57P01, also what `pg_terminate_backend` sends), it crashed (57P02), or it is
    /// starting up or shutting down (57P03).
    Ended,
    /// The connection broke under the session: a socket error, a connection exception (08xxx),
    /// or a stream that stopped making sense.
    Broken,
}

impl Fault {
    /// What `e` is, if it is a fault; `None` for an answer (a serialization failure, a
    /// deadlock, a constraint…) or a mistake of the caller's.
    pub fn of(e: &sqlx::Error) -> Option<Fault> {
        if let Some(fault) = mysql(e) {
            return fault;
        }
        match e {
            sqlx::Error::Database(e) => match e.code().as_deref() {
                Some("57P01" | "57P02" | "57P03") => Some(Fault::Ended),
                // too_many_connections
                Some("53300") => Some(Fault::Unreachable),
                Some(code) if code.starts_with("08") => Some(Fault::Broken),
                _ => None,
            },
            sqlx::Error::Io(e) => Some(match e.kind() {
                ErrorKind::ConnectionRefused
                | ErrorKind::TimedOut
                | ErrorKind::NotFound
                | ErrorKind::AddrNotAvailable
                | ErrorKind::HostUnreachable
                | ErrorKind::NetworkUnreachable => Fault::Unreachable,
                _ => Fault::Broken,
            }),
            sqlx::Error::Tls(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => {
                Some(Fault::Unreachable)
            }
            sqlx::Error::Protocol(_) | sqlx::Error::WorkerCrashed => Some(Fault::Broken),
            _ => None,
        }
    }

    /// Whether `e` says that a session which was working is gone (ended or broken): what a
    /// restart does to every connection a pool kept.
    pub fn is_lost(e: &sqlx::Error) -> bool {
        matches!(Fault::of(e), Some(Fault::Ended | Fault::Broken))
    }
}

/// What a MySQL/MariaDB error is, when `e` is one (`Some(None)`: an answer, not a fault). Its
/// SQLSTATEs are too coarse (a killed connection's 70100 is also a cancelled query's), so the
/// error number decides: the server shutting down (1053), the connection killed (1927, and
/// MySQL 8's 4031 for one cut off while idle), aborted (1152–1161, 08S01), or too many (1040).
fn mysql(e: &sqlx::Error) -> Option<Option<Fault>> {
    let sqlx::Error::Database(e) = e else {
        return None;
    };
    let e = e.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()?;
    Some(match e.number() {
        1053 | 1927 | 4031 => Some(Fault::Ended),
        1040 | 1203 => Some(Fault::Unreachable),
        1152..=1161 => Some(Fault::Broken),
        _ => None,
    })
}

/// Why a connection could not be had, in words fit to send to a client: no address, no user
/// name, no server text (those go to the log).
pub fn reason(e: &sqlx::Error) -> String {
    let words = match e {
        sqlx::Error::Io(e) => match e.kind() {
            ErrorKind::ConnectionRefused => {
                "PostgreSQL is not accepting connections (connection refused): is it running, \
                 on the host and port that DATABASE_URL names?"
            }
            ErrorKind::TimedOut => "PostgreSQL does not answer (timed out)",
            _ => "the connection to PostgreSQL failed (the server's log says why)",
        },
        sqlx::Error::Database(d) => match d.code().as_deref() {
            Some("57P03") => "PostgreSQL is starting up or shutting down",
            Some("53300") => "PostgreSQL has no room for another connection",
            Some("3D000") => "the database that DATABASE_URL names does not exist",
            Some(code) if code.starts_with("28") => {
                "PostgreSQL refused the user or password of DATABASE_URL"
            }
            _ => "PostgreSQL refused the connection (the server's log says why)",
        },
        sqlx::Error::PoolTimedOut => "no connection to PostgreSQL could be had in time",
        sqlx::Error::Tls(_) => "the TLS connection to PostgreSQL failed",
        sqlx::Error::Migrate(_) => {
            "the migrations could not be applied (the server's log says why)"
        }
        _ => "cannot connect to PostgreSQL (the server's log says why)",
    };
    words.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_that_break_are_lost_and_refusals_unreachable() {
        let io = |kind| sqlx::Error::Io(std::io::Error::new(kind, "x"));
        assert_eq!(
            Fault::of(&io(ErrorKind::UnexpectedEof)),
            Some(Fault::Broken)
        );
        assert_eq!(Fault::of(&io(ErrorKind::BrokenPipe)), Some(Fault::Broken));
        assert_eq!(
            Fault::of(&io(ErrorKind::ConnectionReset)),
            Some(Fault::Broken)
        );
        assert_eq!(
            Fault::of(&io(ErrorKind::ConnectionRefused)),
            Some(Fault::Unreachable)
        );
        assert_eq!(
            Fault::of(&sqlx::Error::PoolTimedOut),
            Some(Fault::Unreachable)
        );
        assert_eq!(
            Fault::of(&sqlx::Error::PoolClosed),
            Some(Fault::Unreachable)
        );
        assert!(Fault::is_lost(&io(ErrorKind::ConnectionAborted)));
        assert_eq!(Fault::of(&sqlx::Error::RowNotFound), None);
    }

    #[test]
    fn a_reason_names_no_address() {
        let refused = sqlx::Error::Io(std::io::Error::new(
            ErrorKind::ConnectionRefused,
            "connect 10.1.2.3:5432",
        ));
        let words = reason(&refused);
        assert!(words.contains("connection refused"), "{words}");
        assert!(!words.contains("10.1.2.3"), "{words}");
    }
}
