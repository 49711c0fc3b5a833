-- The atomic defence's claim (shared/src/sql.rs, Op::Claim) on a seat that is already held:
-- it evaluates its WHERE and updates no row, as most taps of a sold-out release do.
\set n random(1, :seats)
update show_seats
   set status = 'HELD', holder = 'bench', hold_id = 'bench:' || :client_id, held_until = 0 + 60
 where show_id = 501 and seat_id = any(array['A' || :n])
   and (status = 'AVAILABLE' or (status = 'HELD' and held_until < 0));
