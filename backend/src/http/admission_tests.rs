//! The admission rule without a database: who gets the next slot.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use super::{Admission, Permit, Refusal, Rules};
use crate::http::cost::Cost;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn cost(seconds: f64) -> Cost {
    Cost {
        entries: 1,
        deadlocks: 0,
        waits: 0,
        estimate: Duration::from_secs_f64(seconds),
    }
}

fn rules(slots: usize) -> Rules {
    Rules {
        queue_limit: Duration::from_secs(5),
        ..Rules::for_slots(slots)
    }
}

/// Starts `admit` as a task, and lets it reach the queue.
async fn queue(
    admission: &Arc<Admission>,
    client: &str,
    seconds: f64,
) -> tokio::task::JoinHandle<Result<Permit, Refusal>> {
    let admission = admission.clone();
    let client = ip(client);
    let task = tokio::spawn(async move { admission.admit(client, cost(seconds)).await });
    tokio::time::sleep(Duration::from_millis(20)).await;
    task
}

#[tokio::test]
async fn a_waiting_client_is_served_before_the_one_that_holds_every_slot_queues_again() {
    let admission = Admission::new(rules(2));
    let a1 = admission.admit(ip("10.0.0.1"), cost(0.5)).await.unwrap();
    let a2 = admission.admit(ip("10.0.0.1"), cost(0.5)).await.unwrap();
    let a3 = queue(&admission, "10.0.0.1", 0.5).await;
    let b1 = queue(&admission, "10.0.0.2", 0.5).await;
    drop(a1);
    let b1 = b1.await.unwrap().expect("b is below its fair share");
    assert!(!a3.is_finished(), "a is at its share while b runs");
    drop(a2);
    let a3 = a3.await.unwrap().expect("then a again");
    drop((a3, b1));
}

#[tokio::test]
async fn cheap_runs_pass_while_expensive_ones_hold_their_slots() {
    let admission = Admission::new(rules(4));
    let s1 = admission.admit(ip("10.0.0.1"), cost(5.0)).await.unwrap();
    let s2 = admission.admit(ip("10.0.0.1"), cost(5.0)).await.unwrap();
    let s3 = queue(&admission, "10.0.0.1", 5.0).await;
    // Two of four slots are free, but not for another expensive run.
    assert!(!s3.is_finished());
    let cheap = admission
        .admit(ip("10.0.0.2"), cost(0.5))
        .await
        .expect("a cheap run passes");
    let own_cheap = admission
        .admit(ip("10.0.0.1"), cost(0.5))
        .await
        .expect("even from the same client");
    drop(s1);
    let s3 = s3.await.unwrap().expect("an expensive slot freed");
    drop((s2, s3, cheap, own_cheap));
}

#[tokio::test]
async fn a_run_above_the_bound_is_refused_and_a_full_queue_says_when_to_retry() {
    let admission = Admission::new(Rules {
        max_waiting_per_client: 1,
        ..rules(1)
    });
    match admission.admit(ip("10.0.0.1"), cost(60.0)).await {
        Err(Refusal::TooCostly { limit, .. }) => assert_eq!(limit, Duration::from_secs(10)),
        _ => panic!("a 60 s run is refused"),
    }
    let _running = admission.admit(ip("10.0.0.1"), cost(3.0)).await.unwrap();
    let _waiting = queue(&admission, "10.0.0.1", 0.5).await;
    match admission.admit(ip("10.0.0.1"), cost(0.5)).await {
        Err(Refusal::Busy {
            retry_after,
            waited: false,
        }) => assert!((1..=3).contains(&retry_after), "{retry_after}"),
        _ => panic!("a second waiting run is refused at once"),
    }
}

#[tokio::test]
async fn a_caller_that_goes_away_leaves_the_queue_and_its_slot() {
    let admission = Admission::new(rules(1));
    let first = admission.admit(ip("10.0.0.1"), cost(0.5)).await.unwrap();
    let gone = queue(&admission, "10.0.0.2", 0.5).await;
    gone.abort();
    let _ = gone.await;
    let next = queue(&admission, "10.0.0.3", 0.5).await;
    drop(first);
    next.await
        .unwrap()
        .expect("the slot goes to the one still waiting");
    let again = admission.admit(ip("10.0.0.2"), cost(0.5)).await;
    assert!(again.is_ok(), "nothing is left held");
}

#[test]
fn an_ipv6_client_is_counted_by_its_network() {
    use crate::http::client::client_of;
    assert_eq!(
        client_of(ip("2001:db8::1")),
        client_of(ip("2001:db8::ffff:1"))
    );
    assert_ne!(
        client_of(ip("2001:db8::1")),
        client_of(ip("2001:db8:0:1::1"))
    );
    assert_eq!(client_of(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
    assert_eq!(client_of(ip("10.0.0.1")), ip("10.0.0.1"));
}
