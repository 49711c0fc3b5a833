//! Runs priced before they start, and admitted fairly between clients.

use super::*;

#[tokio::test]
async fn a_run_that_finds_no_slot_in_time_is_a_503_with_retry_after() {
    let rules = Rules {
        queue_limit: Duration::from_secs(1),
        ..Rules::for_slots(1)
    };
    let addr = spawn_with(Limits::default(), Some(rules), None).await;
    let slow = tokio::spawn(post_json(client_from("127.0.0.1"), addr, deadlocks(1, 3)));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (status, headers, body) =
        json_message(post_json(client_from("127.0.0.2"), addr, GOOD.to_string()).await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert_eq!(slow.await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn a_run_priced_above_the_bound_is_refused_before_it_starts() {
    let addr = spawn_with(Limits::default(), None, None).await;
    let started = Instant::now();
    let response = post_json(reqwest::Client::new(), addr, deadlocks(2, 8)).await;
    let (status, _, body) = json_message(response).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("16 deadlocks") && message.contains("-- replay FILE"),
        "{message}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "refused, not run"
    );
}

#[tokio::test]
async fn a_second_client_is_served_before_the_first_clients_queue_is_done() {
    // Two slots, every run cheap: only the fair shares decide.
    let rules = Rules {
        cheap: Duration::from_secs(60),
        queue_limit: Duration::from_secs(40),
        ..Rules::for_slots(2)
    };
    let addr = spawn_with(Limits::default(), Some(rules), None).await;
    let finished = |from: &'static str, n: usize| {
        tokio::spawn(async move {
            let response = post_json(client_from("127.0.0.1"), addr, deadlocks(1, 2)).await;
            assert_eq!(response.status(), StatusCode::OK, "{from} {n}");
            Instant::now()
        })
    };
    let a: Vec<_> = (0..4).map(|n| finished("a", n)).collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let b = tokio::spawn(async move {
        let response = post_json(client_from("127.0.0.2"), addr, deadlocks(1, 2)).await;
        assert_eq!(response.status(), StatusCode::OK, "b");
        Instant::now()
    });
    let b = b.await.unwrap();
    let mut a_done = Vec::new();
    for t in a {
        a_done.push(t.await.unwrap());
    }
    a_done.sort();
    // First come, first served would run b after all four of a's.
    assert!(b < a_done[3], "b was served before a's last run");
}

#[tokio::test]
async fn cheap_runs_pass_while_slow_ones_hold_the_expensive_slots() {
    let addr = spawn_with(Limits::default(), Some(Rules::for_slots(2)), None).await;
    let slow: Vec<_> = (0..2)
        .map(|_| tokio::spawn(post_json(client_from("127.0.0.1"), addr, deadlocks(1, 3))))
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let response = post_json(client_from("127.0.0.2"), addr, GOOD.to_string()).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        slow.iter().any(|s| !s.is_finished()),
        "the cheap run did not wait for both slow ones"
    );
    for s in slow {
        assert_eq!(s.await.unwrap().status(), StatusCode::OK);
    }
}
