//! What the process asks of the operating system for its client connections: open files
//! enough for them, and a listen backlog deep enough for a flood.

use tokio::net::TcpListener;

/// The process's soft and hard limits on open files.
pub fn open_files() -> (usize, usize) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given and nothing else.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return (1024, 1024);
    }
    let count = |n: libc::rlim_t| usize::try_from(n).unwrap_or(usize::MAX);
    (count(limit.rlim_cur), count(limit.rlim_max))
}

/// Raises the soft limit on open files to the hard limit: each connection is a file, and the
/// default soft limit (often 1024) is what a flood of idle sockets exhausts first.
pub fn raise_open_files_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: both calls only read or write the struct they are given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                tracing::warn!("cannot raise the open-files limit");
            }
        }
    }
}

/// Listens again with a deeper backlog than tokio's 1024 (Linux lets a listening socket change
/// its backlog): under a flood of connections, a health check's SYN must not find the queue
/// full and wait a second for its retransmission.
pub fn deepen_backlog(listener: &TcpListener) {
    use std::os::fd::AsRawFd;
    // SAFETY: listen on a socket that is already listening only changes its backlog.
    unsafe {
        libc::listen(listener.as_raw_fd(), 8192);
    }
}
