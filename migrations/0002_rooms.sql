-- The live rooms of a workshop: who runs each room, who joined it, its rounds, and every
-- statement the server sent for them. These tables live in a schema of their own and are never
-- part of a run's schema: `shared::sql::SCHEMA_DDL` is 0001 alone. Each round's seats live in
-- a booking schema of the round's own (`room_<code>_r<n>`), made from 0001 like a run's.

create schema lastseat_rooms;

-- One room. The facilitator's secret is stored only as its SHA-256; the join code is short and
-- made of letters that cannot be mistaken for one another.
create table lastseat_rooms.rooms (
    code               text primary key,
    secret_hash        bytea not null,
    seats              int not null check (seats between 1 and 500),
    defence            text not null,
    gap_ms             int not null check (gap_ms between 0 and 5000),
    hold_seconds       int not null check (hold_seconds between 1 and 3600),
    late_payments      boolean not null default false,
    duplicate_payments boolean not null default false,
    round              int not null default 0,
    -- lobby, race (a countdown until race_at, then the race) or results.
    phase              text not null default 'lobby' check (phase in ('lobby', 'race', 'results')),
    race_at            timestamptz,
    -- The round schema's virtual clock, in seconds since race_at (the ticker's high-water mark).
    clock              bigint not null default 0,
    created_at         timestamptz not null default now(),
    touched_at         timestamptz not null default now()
);

-- Who joined: a display name, the actor name the round's schedule gives them, and the SHA-256
-- of their token. `busy_until` keeps one request of theirs in flight at a time;
-- `pending` is the rest of their last attempt (its pay and confirm), as schedule ops.
create table lastseat_rooms.participants (
    room        text not null references lastseat_rooms.rooms on delete cascade,
    n           int not null,
    name        text not null,
    actor       text not null,
    token_hash  bytea not null unique,
    bot         boolean not null default false,
    busy_until  timestamptz,
    pending     jsonb not null default '[]',
    joined_at   timestamptz not null default now(),
    primary key (room, n),
    unique (room, actor)
);

-- Every operation the server carried out for a participant (or the clock) in a round, in the
-- participant's program order (`op_index`), with when it was sent and answered: the feed, the
-- scoreboard's refusals and the round's schedule are all read from here.
create table lastseat_rooms.requests (
    id          bigserial primary key,
    room        text not null references lastseat_rooms.rooms on delete cascade,
    round       int not null,
    actor       text not null,
    op_index    int not null,
    op          jsonb not null,
    sql         text,
    result      jsonb not null,
    seen        jsonb not null default '[]',
    clock       bigint not null,
    sent_at     timestamptz not null,
    answered_at timestamptz not null
);
create index on lastseat_rooms.requests (room, round, actor, op_index);
create index on lastseat_rooms.requests (room, round, sent_at);

-- What each participant's phone was last told about each seat this round: it has it (booked,
-- or held until a second of the round's clock), so that two people told they have one seat at
-- once count as a double booking.
create table lastseat_rooms.told (
    room   text not null references lastseat_rooms.rooms on delete cascade,
    round  int not null,
    n      int not null,
    seat   text not null,
    booked boolean not null,
    until  bigint,
    primary key (room, round, n, seat)
);

-- Each round as it was started: its settings (a later change does not rewrite a past round).
create table lastseat_rooms.rounds (
    room       text not null references lastseat_rooms.rooms on delete cascade,
    n          int not null,
    defence    text not null,
    gap_ms     int not null,
    hold_seconds int not null,
    seats      int not null,
    started_at timestamptz not null default now(),
    primary key (room, n)
);
