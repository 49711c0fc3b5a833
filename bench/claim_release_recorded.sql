-- The winning write path with the least a live room must also keep: after the claim and after
-- the release, a row saying what ran (each its own synchronous commit, as a request's record
-- is). No HTTP, no lease, no batching: a ceiling for what `backend load --release` can reach.
\set n random(1, :seats)
update show_seats
   set status = 'HELD', holder = 'bench', hold_id = 'bench:' || :client_id, held_until = 0 + 60
 where show_id = 501 and seat_id = any(array['A' || :n])
   and (status = 'AVAILABLE' or (status = 'HELD' and held_until < 0));
insert into bench_records (client, op) values (:client_id, 'claim');
update show_seats
   set status = 'AVAILABLE', holder = null, hold_id = null, held_until = null
 where show_id = 501 and hold_id = 'bench:' || :client_id and status = 'HELD';
insert into bench_records (client, op) values (:client_id, 'release');
