-- The booking schema of Last Seat on MySQL/InnoDB (MariaDB 10.11 and MySQL 8): the twin of
-- ../0001_booking.sql, with the same tables, columns and answers.
--
-- The backend executes this text in a database of its own per run (so no name below is
-- qualified); sqlx's migrator never reads this folder. The `delimiter` lines are the mysql
-- client's: the executor cuts the text the same way, so `mariadb DB < 0001_booking.sql` and a
-- run build the same thing. seat_id, status, holder and hold_id compare as bytes (utf8mb4_bin),
-- so that seat order is PostgreSQL's "C" order.
--
-- hold and confirm are PROCEDURES, called as `call hold_seats(?, …)`, each answering one row
-- of one column named after it: in a stored function neither MariaDB nor MySQL lets a handler
-- catch a lock wait's 1205, which hold's NOWAIT needs. A procedure's statements would each
-- commit on their own in autocommit, so each one runs as a transaction of its own (START
-- TRANSACTION … COMMIT; hold and confirm never run inside a `begin`); on an error it rolls
-- back and passes the error on, as PostgreSQL's autocommit call does.

-- The virtual clock, in whole minutes: one row in a MEMORY table, which is not transactional,
-- never row-locked and read outside any snapshot, so a REPEATABLE READ transaction still sees
-- the clock move. Only `advance` and the executor's snapshots touch it; every other statement
-- is given the clock as a parameter, read when it is sent (MySQL's NOW() is also the start of
-- the calling statement), so `now: evaluation` reads as the statement's start here.
create table clock (
    now bigint not null
) engine = MEMORY;
insert into clock (now) values (0);

-- One row per seat per show: the row that everyone fights over.
create table show_seats (
    show_id    bigint not null,
    seat_id    varchar(64) character set utf8mb4 collate utf8mb4_bin not null,
    status     varchar(16) character set utf8mb4 collate utf8mb4_bin not null default 'AVAILABLE'
               check (status in ('AVAILABLE', 'HELD', 'BOOKED')),
    holder     varchar(64) character set utf8mb4 collate utf8mb4_bin,
    hold_id    varchar(128) character set utf8mb4 collate utf8mb4_bin,
    held_until bigint,
    primary key (show_id, seat_id)
) engine = InnoDB;

-- Confirmed seats; the unique key is the safety net under every defence. No primary key, as
-- in PostgreSQL: InnoDB makes this unique key (all its columns not null) the clustered index.
create table booking_seats (
    booking_id varchar(128) character set utf8mb4 collate utf8mb4_bin not null,
    show_id    bigint not null,
    seat_id    varchar(64) character set utf8mb4 collate utf8mb4_bin not null,
    holder     varchar(64) character set utf8mb4 collate utf8mb4_bin not null,
    unique key booking_seats_show_id_seat_id_key (show_id, seat_id)
) engine = InnoDB;

-- Every accepted hold attempt; seats is the comma-separated list of its seats, sorted.
create table hold_attempts (
    hold_id    varchar(128) character set utf8mb4 collate utf8mb4_bin primary key,
    holder     varchar(64) character set utf8mb4 collate utf8mb4_bin not null,
    show_id    bigint not null,
    seats      text character set utf8mb4 collate utf8mb4_bin not null,
    held_until bigint not null
) engine = InnoDB;

-- The decided outcome of each payment, keyed by the hold id that was its idempotency key.
create table payments (
    hold_id varchar(128) character set utf8mb4 collate utf8mb4_bin primary key,
    holder  varchar(64) character set utf8mb4 collate utf8mb4_bin not null,
    outcome varchar(16) character set utf8mb4 collate utf8mb4_bin not null
            check (outcome in ('issued', 'refund_due'))
) engine = InnoDB;

-- Refunds owed, one row per payment.
create table refund_outbox (
    hold_id varchar(128) character set utf8mb4 collate utf8mb4_bin primary key,
    holder  varchar(64) character set utf8mb4 collate utf8mb4_bin not null
) engine = InnoDB;

delimiter //

-- hold: the all-or-nothing hold as one call, with PostgreSQL's answers. A retry of an attempt
-- that exists never takes or extends anything. Otherwise it locks the seats one by one in
-- seat order without waiting (FOR UPDATE, each an equality on the primary key: a record lock,
-- reading the newest committed row); a seat locked by someone else answers 'busy'. Unlike
-- PostgreSQL's subtransaction, the locks already taken on earlier seats stay until the
-- transaction ends (the end of this call). p_now_mode is taken for PostgreSQL's signature:
-- every reading of the clock is the one the statement was sent with (p_called_at).
create procedure hold_seats(
    p_show bigint, p_seats text, p_holder varchar(64), p_hold_id varchar(128),
    p_minutes bigint, p_now_mode varchar(16), p_called_at bigint
)
modifies sql data
begin
    declare v_now bigint default p_called_at;
    declare v_answer varchar(16) default 'held';
    declare v_found int default 0;
    declare v_seats text default null;
    declare v_live int default 0;
    declare v_count int default 0;
    declare v_free int default 0;
    declare v_rest text default p_seats;
    declare v_seat varchar(64);
    declare v_status varchar(16);
    declare v_until bigint;
    declare v_busy int default 0;
    declare v_timeout bigint default @@session.innodb_lock_wait_timeout;
    declare exit handler for sqlexception
    begin
        set session innodb_lock_wait_timeout = v_timeout;
        rollback;
        resignal;
    end;

    start transaction;
    select count(*), max(seats) into v_found, v_seats
      from hold_attempts where hold_id = p_hold_id;
    if v_found > 0 then
        select count(*) into v_live from show_seats
         where show_id = p_show and find_in_set(seat_id, v_seats) > 0 and hold_id = p_hold_id
           and (status = 'BOOKED' or (status = 'HELD' and held_until >= v_now));
        set v_answer = case when v_live = 1 + length(v_seats) - length(replace(v_seats, ',', ''))
                            then 'held' else 'expired' end;
    else
        -- NOWAIT: MariaDB allows no [NO]WAIT clause in a stored program, and its NOWAIT is
        -- this very setting for one statement (a lock not granted at once fails with 1205).
        -- MySQL 8's least timeout is 1 s: there a busy seat answers 'busy' after a second.
        locks: begin
            declare continue handler for 1205, 3572 set v_busy = 1;
            set session innodb_lock_wait_timeout = 0;
            seats: while v_rest <> '' do
                set v_seat = substring_index(v_rest, ',', 1);
                set v_rest = if(locate(',', v_rest) > 0,
                                substring(v_rest, locate(',', v_rest) + 1), '');
                set v_status = null;
                select status, held_until into v_status, v_until from show_seats
                 where show_id = p_show and seat_id = v_seat
                   for update;
                if v_busy = 1 then
                    leave seats;
                end if;
                set v_count = v_count + 1;
                if v_status = 'AVAILABLE' or (v_status = 'HELD' and v_until < v_now) then
                    set v_free = v_free + 1;
                end if;
            end while;
            set session innodb_lock_wait_timeout = v_timeout;
        end locks;

        if v_busy = 1 then
            set v_answer = 'busy';
        elseif v_free < v_count then
            set v_answer = 'unavailable';
        else
            set v_rest = p_seats;
            while v_rest <> '' do
                set v_seat = substring_index(v_rest, ',', 1);
                set v_rest = if(locate(',', v_rest) > 0,
                                substring(v_rest, locate(',', v_rest) + 1), '');
                update show_seats
                   set status = 'HELD', holder = p_holder, hold_id = p_hold_id,
                       held_until = v_now + p_minutes
                 where show_id = p_show and seat_id = v_seat;
            end while;
            insert into hold_attempts (hold_id, holder, show_id, seats, held_until)
            values (p_hold_id, p_holder, p_show, p_seats, v_now + p_minutes);
        end if;
    end if;
    commit;
    select v_answer as hold_seats;
end
//

-- confirm: the payment webhook, with PostgreSQL's answers. Finds the hold's seats (a
-- consistent read), locks them one by one in seat order (waiting), then decides once per
-- payment. The payments row is read with LOCK IN SHARE MODE, so that, like PostgreSQL's fresh
-- READ COMMITTED snapshot after the wait, it sees a payment committed while this call waited.
create procedure confirm_hold(
    p_show bigint, p_holder varchar(64), p_hold_id varchar(128), p_now_mode varchar(16),
    p_called_at bigint
)
modifies sql data
begin
    declare v_now bigint default p_called_at;
    declare v_answer varchar(16);
    declare v_seats text default null;
    declare v_rest text;
    declare v_seat varchar(64);
    declare v_count int default 0;
    declare v_valid int default 0;
    declare v_status varchar(16);
    declare v_hold varchar(128);
    declare v_until bigint;
    declare v_decided varchar(16) default null;
    declare exit handler for sqlexception
    begin
        rollback;
        resignal;
    end;

    start transaction;
    select group_concat(seat_id order by seat_id separator ',') into v_seats
      from show_seats where show_id = p_show and hold_id = p_hold_id;
    set v_rest = coalesce(v_seats, '');
    while v_rest <> '' do
        set v_seat = substring_index(v_rest, ',', 1);
        set v_rest = if(locate(',', v_rest) > 0, substring(v_rest, locate(',', v_rest) + 1), '');
        select status, hold_id, held_until into v_status, v_hold, v_until from show_seats
         where show_id = p_show and seat_id = v_seat
           for update;
        set v_count = v_count + 1;
        if v_hold = p_hold_id and v_status = 'HELD' and v_until >= v_now then
            set v_valid = v_valid + 1;
        end if;
    end while;

    select max(outcome) into v_decided from payments where hold_id = p_hold_id
      lock in share mode;
    if v_decided is not null then
        set v_answer = case when v_decided = 'issued' then 'duplicate' else 'refund_due' end;
    elseif v_count > 0 and v_valid = v_count then
        set v_rest = v_seats;
        while v_rest <> '' do
            set v_seat = substring_index(v_rest, ',', 1);
            set v_rest = if(locate(',', v_rest) > 0,
                            substring(v_rest, locate(',', v_rest) + 1), '');
            update show_seats set status = 'BOOKED'
             where show_id = p_show and seat_id = v_seat;
            insert into booking_seats (booking_id, show_id, seat_id, holder)
            values (p_hold_id, p_show, v_seat, p_holder);
        end while;
        insert into payments (hold_id, holder, outcome) values (p_hold_id, p_holder, 'issued');
        set v_answer = 'issued';
    else
        insert into payments (hold_id, holder, outcome)
        values (p_hold_id, p_holder, 'refund_due');
        insert into refund_outbox (hold_id, holder) values (p_hold_id, p_holder);
        set v_answer = 'refund_due';
    end if;
    commit;
    select v_answer as confirm_hold;
end
//

delimiter ;
