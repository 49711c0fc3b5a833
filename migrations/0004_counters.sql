-- The counters of Last Seat: the same race as a seat's, on a count in a row instead of a
-- numbered seat. Each table is one shape of it (shared/src/schedule/shape.rs): the tickets left
-- in a general-admission section, an account's balance, the calls an API key has left in its
-- window, a single-use coupon. Like 0001, this text is also executed in every real run's own
-- schema after 0001's, so no name below is schema-qualified. No CHECK constraints on purpose: an
-- unconditional decrement after a stale check is meant to be able to go below zero, as it does
-- in the applications these scenarios retell.

create table sections (
    section_id   text collate "C" primary key,
    tickets_left bigint not null
);

create table accounts (
    account_id text collate "C" primary key,
    balance    bigint not null
);

create table api_keys (
    api_key    text collate "C" primary key,
    calls_left bigint not null
);

create table coupons (
    code text collate "C" primary key,
    used boolean not null default false
);
