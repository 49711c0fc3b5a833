-- The usernames of Last Seat on MySQL/InnoDB: the twin of ../0005_usernames.sql, executed in
-- every run's own database after 0002_counters.sql. `users`' index on the name is not unique
-- (the application's check is all that guards it); `usernames`' primary key is. Names compare as
-- bytes (utf8mb4_bin), PostgreSQL's "C" order.

create table users (
    user_id    bigint auto_increment primary key,
    username   varchar(64) character set utf8mb4 collate utf8mb4_bin not null,
    created_by varchar(64) not null,
    key users_username (username)
) engine = InnoDB;

create table usernames (
    username   varchar(64) character set utf8mb4 collate utf8mb4_bin primary key,
    owner      varchar(64) not null,
    request_id varchar(64) not null
) engine = InnoDB;
