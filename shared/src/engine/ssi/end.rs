//! The end of a serializable transaction: ReleasePredicateLocks (commit flags, conflicts kept
//! or dropped, the global xmin) and ClearOldPredicateLocks (forgetting committed transactions
//! no active one overlaps).

use super::{Ssi, SxId, COMMITTED, CONFLICT_OUT, DOOMED, PREPARED, READ_ONLY, ROLLED_BACK};

impl Ssi {
    /// ReleasePredicateLocks at the end of `me` (commit or rollback); `next_xid` is the xid
    /// the next transaction would get.
    pub fn end(&mut self, me: SxId, commit: bool, next_xid: u32) {
        let sx = &mut self.sxs[me as usize];
        sx.finished_before = next_xid;
        if commit {
            self.last_commit_seq += 1;
            sx.flags |= COMMITTED;
            sx.commit_seq = self.last_commit_seq;
            if !sx.did_write {
                sx.flags |= READ_ONLY;
            }
        } else {
            sx.flags = (sx.flags | DOOMED | ROLLED_BACK) & !PREPARED;
        }
        let last = self.last_commit_seq;
        let mine = *self.sx(me);
        let mut earliest = mine.earliest_out_conflict_commit;
        let mut conflict_out = mine.is(CONFLICT_OUT);
        let sxs = &self.sxs;
        self.conflicts.retain(|&(r, w)| {
            if r == me {
                let t = &sxs[w as usize];
                if commit && !mine.is(READ_ONLY) && t.is(COMMITTED) {
                    if !conflict_out || t.prepare_seq < earliest {
                        earliest = t.prepare_seq;
                    }
                    conflict_out = true;
                }
                commit && !t.is(COMMITTED) && t.last_commit_before_snapshot < last
            } else if w == me {
                let t = &sxs[r as usize];
                commit && !t.is(COMMITTED) && !t.is(READ_ONLY)
            } else {
                true
            }
        });
        let sx = &mut self.sxs[me as usize];
        sx.earliest_out_conflict_commit = earliest;
        if conflict_out {
            sx.flags |= CONFLICT_OUT;
        }
        let mut clear = false;
        if let Some((x, n)) = self.global_xmin {
            if x == mine.xmin {
                if n > 1 {
                    self.global_xmin = Some((x, n - 1));
                } else {
                    self.global_xmin = self.active_xmin();
                    clear = true;
                }
            }
        }
        if commit {
            self.finished.push(me);
        } else {
            self.release(me);
        }
        if clear {
            self.clear_old();
        }
    }

    /// SetNewSxactGlobalXmin: the oldest xmin of the active serializable transactions.
    fn active_xmin(&self) -> Option<(u32, u32)> {
        let active = self
            .sxs
            .iter()
            .filter(|s| !s.released && !s.is(COMMITTED) && !s.is(ROLLED_BACK));
        let min = active.clone().map(|s| s.xmin).min()?;
        Some((min, active.filter(|s| s.xmin == min).count() as u32))
    }

    /// ClearOldPredicateLocks: forgets committed transactions that every active serializable
    /// transaction can see.
    fn clear_old(&mut self) {
        while let Some(&first) = self.finished.first() {
            let old = self
                .global_xmin
                .is_none_or(|(x, _)| self.sx(first).finished_before <= x);
            if !old {
                break;
            }
            self.finished.remove(0);
            self.release(first);
        }
    }

    /// ReleaseOneSerializableXact: drops its SIREAD locks and every conflict it is part of.
    fn release(&mut self, me: SxId) {
        self.siread.retain(|&(h, _, _)| h != me);
        self.conflicts.retain(|&(r, w)| r != me && w != me);
        let sx = &mut self.sxs[me as usize];
        sx.released = true;
        sx.page_lock = false;
        sx.accounts_page = false;
    }
}
