-- The booking schema of Last Seat.
--
-- This one file is both the live schema (applied by sqlx migrate at start-up) and the DDL of
-- every real run: the executor creates a fresh schema per run and executes this text in it, so
-- no name below is schema-qualified. Never edit this file once applied: add a new migration.

-- The virtual clock, in whole minutes. A sequence, not a table: a sequence is read outside any
-- snapshot and is never row-locked, so a REPEATABLE READ transaction still sees the clock move
-- and a FOR UPDATE never locks it.
create sequence clock minvalue 0 start 0;

-- "The time of the decision" (clock_timestamp() on the virtual clock): read afresh each time it
-- is evaluated, including when READ COMMITTED re-checks a row after waiting for its lock.
create function clock_now() returns bigint
language sql volatile
as $$ select last_value from clock $$;

-- One row per seat per show: the row that everyone fights over. Its row lock referees the
-- fight; a hold lives on the row itself (holder, hold_id, held_until), so an expired hold is
-- free again for the next conditional claim without any sweeper.
create table show_seats (
    show_id    bigint not null,
    seat_id    text collate "C" not null,
    status     text not null default 'AVAILABLE'
               check (status in ('AVAILABLE', 'HELD', 'BOOKED')),
    holder     text,
    hold_id    text,
    held_until bigint,
    primary key (show_id, seat_id)
);

-- Confirmed seats. The unique key is the safety net under every defence: whatever got past
-- the checks above it, the database refuses to sell one seat twice. No foreign key on purpose:
-- a foreign key would take KEY SHARE locks on show_seats and change who waits for whom.
create table booking_seats (
    booking_id text not null,
    show_id    bigint not null,
    seat_id    text collate "C" not null,
    holder     text not null,
    unique (show_id, seat_id)
);

-- Every accepted hold attempt, so that a retry of the same attempt can be recognised: it
-- returns the existing hold, never extends its deadline, and answers 'expired' once the hold
-- was replaced or ran out.
create table hold_attempts (
    hold_id    text primary key,
    holder     text not null,
    show_id    bigint not null,
    seats      text[] not null,
    held_until bigint not null
);

-- The decided outcome of each payment, keyed by the hold id that was the payment's
-- idempotency key: a duplicate webhook returns what was decided the first time.
create table payments (
    hold_id text primary key,
    holder  text not null,
    outcome text not null check (outcome in ('issued', 'refund_due'))
);

-- Refunds owed, written in the same transaction that rejected a late payment; a worker sends
-- them later. One row per payment: a duplicate webhook cannot queue a second refund.
create table refund_outbox (
    hold_id text primary key,
    holder  text not null
);

-- hold: the whole all-or-nothing hold as one call. Lock every seat without queueing (NOWAIT),
-- check them all at the time of the decision, take them all or none. A retry of an attempt
-- that already exists never takes or extends anything.
create function hold_seats(
    p_show bigint, p_seats text[], p_holder text, p_hold_id text,
    p_minutes bigint, p_now_mode text, p_called_at bigint
) returns text
language plpgsql
as $$
declare
    v_now  bigint;
    v_seats text[];
    v_live int;
    v_free int;
begin
    select seats into v_seats from hold_attempts where hold_id = p_hold_id;
    if found then
        select count(*) into v_live from show_seats
         where show_id = p_show and seat_id = any(v_seats) and hold_id = p_hold_id
           and (status = 'BOOKED' or (status = 'HELD' and held_until >= clock_now()));
        return case when v_live = cardinality(v_seats) then 'held' else 'expired' end;
    end if;

    begin
        perform 1 from show_seats
         where show_id = p_show and seat_id = any(p_seats)
         order by seat_id
           for update nowait;
    exception when lock_not_available then
        return 'busy';
    end;

    v_now := case when p_now_mode = 'evaluation' then clock_now() else p_called_at end;
    select count(*) into v_free from show_seats
     where show_id = p_show and seat_id = any(p_seats)
       and (status = 'AVAILABLE' or (status = 'HELD' and held_until < v_now));
    if v_free < cardinality(p_seats) then
        return 'unavailable';
    end if;

    update show_seats
       set status = 'HELD', holder = p_holder, hold_id = p_hold_id,
           held_until = v_now + p_minutes
     where show_id = p_show and seat_id = any(p_seats);
    insert into hold_attempts (hold_id, holder, show_id, seats, held_until)
    values (p_hold_id, p_holder, p_show, p_seats, v_now + p_minutes);
    return 'held';
end
$$;

-- confirm: the payment webhook. Lock the hold's seats, then decide once per payment: book them
-- if the hold is still this one and unexpired, otherwise owe a refund, recording either in
-- the same transaction. A second delivery returns the recorded decision.
create function confirm_hold(
    p_show bigint, p_holder text, p_hold_id text, p_now_mode text, p_called_at bigint
) returns text
language plpgsql
as $$
declare
    v_now     bigint;
    v_seats   text[];
    v_decided text;
    v_valid   int;
begin
    select coalesce(array_agg(seat_id order by seat_id), '{}') into v_seats
      from show_seats where show_id = p_show and hold_id = p_hold_id;
    perform 1 from show_seats
     where show_id = p_show and seat_id = any(v_seats)
     order by seat_id
       for update;

    v_now := case when p_now_mode = 'evaluation' then clock_now() else p_called_at end;
    select outcome into v_decided from payments where hold_id = p_hold_id;
    if found then
        return case when v_decided = 'issued' then 'duplicate' else 'refund_due' end;
    end if;

    select count(*) into v_valid from show_seats
     where show_id = p_show and seat_id = any(v_seats) and hold_id = p_hold_id
       and status = 'HELD' and held_until >= v_now;
    if cardinality(v_seats) > 0 and v_valid = cardinality(v_seats) then
        update show_seats set status = 'BOOKED'
         where show_id = p_show and seat_id = any(v_seats);
        insert into booking_seats (booking_id, show_id, seat_id, holder)
        select p_hold_id, p_show, s, p_holder from unnest(v_seats) as s;
        insert into payments (hold_id, holder, outcome) values (p_hold_id, p_holder, 'issued');
        return 'issued';
    end if;

    insert into payments (hold_id, holder, outcome) values (p_hold_id, p_holder, 'refund_due');
    insert into refund_outbox (hold_id, holder) values (p_hold_id, p_holder);
    return 'refund_due';
end
$$;
