-- A live room's round may sell general admission: one section's count of tickets left (the
-- `sections` table of 0004, in the round's own schema) instead of numbered seats. The room keeps
-- the kind and the tickets its facilitator chose for the next round; each round keeps those it
-- was played with, so that its record replays as the kind of round it was. (Numbered 0006, not
-- 0005, so that it cannot meet another branch's 0005 when both land.)

alter table lastseat_rooms.rooms
    add column kind    text not null default 'seats'
        check (kind in ('seats', 'general_admission')),
    add column tickets int not null default 100 check (tickets between 1 and 500);

-- A round played before there was a choice sold numbered seats; `tickets` is null on such a
-- round.
alter table lastseat_rooms.rounds
    add column kind    text not null default 'seats'
        check (kind in ('seats', 'general_admission')),
    add column tickets int;
