-- The counters of Last Seat on MySQL/InnoDB: the twin of ../0004_counters.sql, executed in every
-- run's own database after 0001_booking.sql. Keys compare as bytes (utf8mb4_bin), so that row
-- order is PostgreSQL's "C" order; `used` is MySQL's boolean (tinyint(1)). No CHECK constraints
-- on purpose: an unconditional decrement after a stale check is meant to be able to go below
-- zero.

create table sections (
    section_id   varchar(64) character set utf8mb4 collate utf8mb4_bin primary key,
    tickets_left bigint not null
) engine = InnoDB;

create table accounts (
    account_id varchar(64) character set utf8mb4 collate utf8mb4_bin primary key,
    balance    bigint not null
) engine = InnoDB;

create table api_keys (
    api_key    varchar(64) character set utf8mb4 collate utf8mb4_bin primary key,
    calls_left bigint not null
) engine = InnoDB;

create table coupons (
    code varchar(64) character set utf8mb4 collate utf8mb4_bin primary key,
    used boolean not null default false
) engine = InnoDB;
