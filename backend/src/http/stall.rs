//! A client socket that gives up on a client who stops reading: a write that can make no
//! progress for `limit` (the kernel's send buffer full, the client's receive window shut) fails,
//! and hyper closes the connection. Without it, a client that asks for a large answer and never
//! reads it holds a busy connection (which the registry never evicts) for ever.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// A `TcpStream` whose writes fail once they have stalled for `limit`.
pub struct WriteStall {
    io: TcpStream,
    limit: Duration,
    /// Armed when a write finds the socket full; disarmed by any progress.
    timer: Option<Pin<Box<Sleep>>>,
}

impl WriteStall {
    pub fn new(io: TcpStream, limit: Duration) -> WriteStall {
        WriteStall {
            io,
            limit,
            timer: None,
        }
    }

    /// After a write made progress (or failed): the stall, if any, is over.
    fn progressed<T>(&mut self, result: io::Result<T>) -> Poll<io::Result<T>> {
        self.timer = None;
        Poll::Ready(result)
    }

    /// After a write found the socket full: pending, unless it has been so for `limit`.
    fn stalled<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let limit = self.limit;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing for {} s", limit.as_secs()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for WriteStall {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteStall {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.io).poll_write(cx, buf) {
            Poll::Ready(result) => self.progressed(result),
            Poll::Pending => self.stalled(cx),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.io).poll_write_vectored(cx, bufs) {
            Poll::Ready(result) => self.progressed(result),
            Poll::Pending => self.stalled(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.io).poll_flush(cx) {
            Poll::Ready(result) => self.progressed(result),
            Poll::Pending => self.stalled(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
