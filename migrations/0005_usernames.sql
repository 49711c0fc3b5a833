-- The usernames of Last Seat: the race for a row that does not exist yet ("batman" checked
-- free, then created twice; shared/src/schedule/shape.rs). `users` is the accounts, as many
-- applications have it: its index on the name is NOT unique, so the application's check is all
-- that guards it. `usernames` is the table of claimed names whose primary key refuses a second
-- claim (`book`), or lets `on conflict do nothing` answer 0 rows (`claim`). Like 0001 and 0004,
-- this text is also executed in every real run's own schema, so no name below is
-- schema-qualified.

create table users (
    user_id    bigint generated always as identity primary key,
    username   text collate "C" not null,
    created_by text not null
);

create table usernames (
    username   text collate "C" primary key,
    owner      text not null,
    request_id text not null
);

create index users_username on users (username);
