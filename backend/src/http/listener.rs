//! The accept loop: each client connection is served by hyper's HTTP/1 with a header-read
//! timeout (which also closes idle keep-alive connections), a deadline for the request body, a
//! bound on how long an answer waits for a client that stopped reading (`stall.rs`), and
//! a place in the connection registry (`conns.rs`), which caps the open connections per client
//! and in all. Ctrl-C stops accepting, lets each connection finish its request, and waits a
//! bounded time for them.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{ConnectInfo, Request};
use axum::Router;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

use super::conns::{Busy, Registry, Ticket};
use super::error::BodyTimeout;
use super::sockets::{deepen_backlog, open_files, raise_open_files_limit};
use super::stall::WriteStall;

/// How the server treats its client connections.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The time a client has to send a request's head, counted from the connection's start or
    /// from the end of its previous response: so it is also how long an idle keep-alive
    /// connection stays open.
    pub header_read_timeout: Duration,
    /// The time a client has to send a request's whole body, from the end of its head.
    pub body_read_timeout: Duration,
    /// How long an answer may wait for a client that reads none of it (`stall.rs`).
    pub write_stall_timeout: Duration,
    /// Open connections in all; past it, the client with the most makes room (`conns.rs`).
    pub max_connections: usize,
    /// Open connections per client address; past it, the client's oldest idle one is closed.
    pub max_per_client: usize,
    /// How long a shutdown waits for the requests in flight.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(10),
            write_stall_timeout: Duration::from_secs(30),
            // Each connection is a file: leave room for the database's connections, the page's
            // files and the logs below the process's limit.
            max_connections: open_files().1.saturating_sub(512).clamp(64, 10_000),
            // A classroom behind one address opens a few connections per browser.
            max_per_client: 512,
            // A run takes up to 30 s, and its answer is worth waiting for.
            shutdown_grace: Duration::from_secs(40),
        }
    }
}

/// Serves `app` on `listener` with `limits` until Ctrl-C.
pub async fn serve(listener: TcpListener, app: Router, limits: Limits) -> io::Result<()> {
    raise_open_files_limit();
    deepen_backlog(&listener);
    let files = open_files().0.saturating_sub(512).max(64);
    let registry = Registry::new(limits.max_connections.min(files), limits.max_per_client);
    let (stop, stopped) = watch::channel(false);
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
            _ = &mut ctrl_c => break,
        };
        let Some(ticket) = registry.admit(super::client::client_of(peer.ip())) else {
            refuse(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            stream,
            peer,
            app.clone(),
            ticket,
            limits.clone(),
            stopped.clone(),
        ));
    }
    let _ = stop.send(true);
    let _ = tokio::time::timeout(limits.shutdown_grace, registry.closed()).await;
    Ok(())
}

/// Serves one connection until the client closes it, a timeout does, the registry evicts it
/// (dropped at once: it has no request in flight), or the server stops (then it ends after its
/// request in flight).
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    ticket: Ticket,
    limits: Limits,
    mut stopped: watch::Receiver<bool>,
) {
    let ticket = Arc::new(ticket);
    let for_requests = ticket.clone();
    let body_timeout = limits.body_read_timeout;
    let handle = move |request: hyper::Request<Incoming>| {
        let busy = for_requests.busy();
        let mut request: Request = request.map(|body| Body::new(Deadline::new(body, body_timeout)));
        request.extensions_mut().insert(ConnectInfo(peer));
        let app = app.clone();
        async move {
            let response = app.oneshot(request).await?;
            Ok::<_, Infallible>(response.map(|body| Body::new(Guarded { body, _busy: busy })))
        }
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        // Larger than the router's own limits (`headers.rs`), so that it is the router that
        // refuses a long address or large headers, with a JSON message; past these hyper
        // refuses them itself, with an empty body (it has no way to give one).
        .max_headers(super::headers::MAX_HEADERS * 4)
        .max_header_size(super::headers::MAX_HEAD_BYTES * 4);
    let io = TokioIo::new(WriteStall::new(stream, limits.write_stall_timeout));
    let conn = http.serve_connection(io, hyper::service::service_fn(handle));
    tokio::pin!(conn);
    tokio::select! {
        result = conn.as_mut() => {
            if let Err(e) = result {
                tracing::debug!(error = %e, "a client connection ended");
            }
        }
        _ = ticket.evicted() => {}
        _ = async { stopped.wait_for(|stop| *stop).await.map(|_| ()) } => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

/// A connection past every cap: a 503 that says so, written if the socket takes it at once.
fn refuse(stream: TcpStream) {
    const BODY: &str = r#"{"error":{"field":null,"message":"the server has as many connections as it can take, all of them busy: try again in a few seconds"}}"#;
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 5\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let _ = stream.try_write(response.as_bytes());
}

/// After a failed accept: a client that gave up is nothing; out of files (`EMFILE`), wait a
/// little for some to close rather than spin.
async fn accept_failed(e: io::Error) {
    if matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %e, "cannot accept a connection");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// A request body with a deadline for the whole of it (tower-http's body timeout restarts at
/// every frame, so a byte a second would never trip it).
struct Deadline {
    body: Incoming,
    limit: Duration,
    at: Instant,
    /// Armed at the first read: a body nobody reads costs no timer.
    timer: Option<Pin<Box<Sleep>>>,
}

impl Deadline {
    fn new(body: Incoming, limit: Duration) -> Deadline {
        Deadline {
            body,
            limit,
            at: Instant::now() + limit,
            timer: None,
        }
    }
}

impl HttpBody for Deadline {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        let at = self.at;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(at)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimeout(self.limit))))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A response body that keeps its connection counted as busy until it has been sent.
struct Guarded {
    body: Body,
    _busy: Busy,
}

impl HttpBody for Guarded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
