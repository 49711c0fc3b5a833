-- Indexes for a busy round. Every screen's state is rebuilt at each change of its room, up to
-- fifty times a second, and a busy round records tens of thousands of requests. Two of its reads would
-- then go through every request of the round: the scoreboard's count of the tickets the unique
-- key refused, and the feed's latest requests. An index each lets them read only what they
-- show.
create index requests_unique_refusals on lastseat_rooms.requests (room, round)
    where result->>'code' = '23505';
create index requests_latest on lastseat_rooms.requests (room, round, id);

-- Every request begins by finding its participant by the hash of their token: without an index
-- that read went through every participant of the room (thousands, in a room of bots).
create index participants_token on lastseat_rooms.participants (room, token_hash);

-- An operation is recorded once: a record sent again after a restart meets this index and adds
-- nothing (`on conflict do nothing`). It replaces the plain index on the same columns, which a
-- record's own check (`not exists`) did not always use: before the statistics knew a fresh
-- round, the planner could as well read every request of the round through another index.
drop index lastseat_rooms.requests_room_round_actor_op_index_idx;
create unique index requests_op on lastseat_rooms.requests (room, round, actor, op_index);
