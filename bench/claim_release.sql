-- The winning write path: the atomic defence's claim (shared/src/sql.rs, Op::Claim) on a free
-- seat, which takes it, then the cancel's release (Op::Release), which frees it again.
\set n random(1, :seats)
update show_seats
   set status = 'HELD', holder = 'bench', hold_id = 'bench:' || :client_id, held_until = 0 + 60
 where show_id = 501 and seat_id = any(array['A' || :n])
   and (status = 'AVAILABLE' or (status = 'HELD' and held_until < 0));
update show_seats
   set status = 'AVAILABLE', holder = null, hold_id = null, held_until = null
 where show_id = 501 and hold_id = 'bench:' || :client_id and status = 'HELD';
