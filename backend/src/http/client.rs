//! Who a request comes from, as admission and the connection caps count clients: the peer
//! address of its connection (the accept loop puts it in the request), an IPv6 one by its
//! network. A reverse proxy in front would make every client one: the server does not trust
//! `X-Forwarded-For`, which any client can write.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

/// The client a request came from: its peer address (inserted by the accept loop), as
/// `client_of` counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientAddr(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>();
        let ip = peer.map_or(Ipv4Addr::UNSPECIFIED.into(), |c| c.0.ip());
        Ok(ClientAddr(client_of(ip)))
    }
}

/// The address a client is counted by: an IPv4 address as it is, an IPv6 one by its /64 (one
/// site's network: a single host can draw any number of addresses from it).
pub fn client_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
        v4 => v4,
    }
}
