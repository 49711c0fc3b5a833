//! SERIALIZABLE: PostgreSQL's serializable snapshot isolation (predicate.c), at the grain the
//! seat race needs.
//!
//! A serializable transaction registers when it takes its snapshot. Reads take SIREAD locks on
//! the row versions they see (tuple locks; from the third one on the same heap page, one page
//! lock instead, as `max_pred_locks_per_page = 2` promotes them); they are kept after commit
//! while an overlapping serializable transaction lives. A write that finds another's SIREAD
//! lock, or a read that finds a version replaced by a concurrent serializable writer, flags a
//! rw-conflict; the checks of `OnConflict_CheckForSerializationFailure` and
//! `PreCommit_CheckForSerializationFailure` are transcribed below, flags and sequence numbers
//! included.
//!
//! Approximations, all outside what the seat race exercises: every show_seats version is taken
//! to live on one heap page and every update to be HOT (no index entry, so the btree page
//! locks of index scans never conflict); pruned line pointers are never reused; transactions
//! of other runs on the same server, which move `xmin`, are not seen; READ ONLY transactions
//! and the SLRU summary of old transactions do not exist here.

use super::mvcc::VerId;

mod end;

pub(crate) type SxId = u16;

const COMMITTED: u8 = 1;
const PREPARED: u8 = 2;
const DOOMED: u8 = 4;
const ROLLED_BACK: u8 = 8;
/// Committed without writing (PostgreSQL's implicit READ ONLY).
const READ_ONLY: u8 = 16;
/// Has a rw-conflict out to a transaction that committed first.
const CONFLICT_OUT: u8 = 32;

/// The failure every check raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Failure;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Sx {
    flags: u8,
    prepare_seq: u32,
    commit_seq: u32,
    last_commit_before_snapshot: u32,
    earliest_out_conflict_commit: u32,
    xmin: u32,
    finished_before: u32,
    did_write: bool,
    released: bool,
    /// SIREAD tuple locks held on the seats' heap page (PostgreSQL's `childLocks`).
    tuple_locks: u8,
    page_lock: bool,
    /// A SIREAD lock on the page of `users`' index on the name (a username's read or lock).
    accounts_page: bool,
}

impl Sx {
    fn is(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

#[derive(Debug, Default)]
pub(crate) struct Ssi {
    sxs: Vec<Sx>,
    /// rw-conflicts: (reader, writer), the reader's read came before the writer's write.
    conflicts: Vec<(SxId, SxId)>,
    /// SIREAD tuple locks: (holder, seat, version), in the order they were taken.
    siread: Vec<(SxId, u8, VerId)>,
    last_commit_seq: u32,
    global_xmin: Option<(u32, u32)>,
    /// Committed transactions not yet cleaned up, in commit order.
    finished: Vec<SxId>,
}

clone_reusing!(Ssi {
    sxs,
    conflicts,
    siread,
    last_commit_seq,
    global_xmin,
    finished,
});

impl Ssi {
    /// Registers a serializable transaction as it takes its snapshot.
    pub fn register(&mut self, xmin: u32) -> SxId {
        self.sxs.push(Sx {
            flags: 0,
            prepare_seq: 0,
            commit_seq: 0,
            last_commit_before_snapshot: self.last_commit_seq,
            earliest_out_conflict_commit: 0,
            xmin,
            finished_before: 0,
            did_write: false,
            released: false,
            tuple_locks: 0,
            page_lock: false,
            accounts_page: false,
        });
        self.global_xmin = match self.global_xmin {
            None => Some((xmin, 1)),
            Some((x, n)) if x == xmin => Some((x, n + 1)),
            other => other,
        };
        (self.sxs.len() - 1) as SxId
    }

    fn sx(&self, s: SxId) -> &Sx {
        &self.sxs[s as usize]
    }

    fn exists(&self, reader: SxId, writer: SxId) -> bool {
        self.conflicts.contains(&(reader, writer))
    }

    /// `me` reads version `v` of `seat`. `replaced_by`: the serializable transaction whose
    /// update of `v` `me` does not see (a rw-conflict out). `own`: `me` wrote `v`.
    pub fn read(
        &mut self,
        me: SxId,
        seat: u8,
        v: VerId,
        replaced_by: Option<SxId>,
        own: bool,
    ) -> Result<(), Failure> {
        if self.sx(me).is(DOOMED) {
            return Err(Failure);
        }
        if let Some(w) = replaced_by.filter(|&w| w != me) {
            if !self.sx(w).is(DOOMED) && !self.exists(me, w) {
                self.flag(me, w, me)?;
            }
        }
        if own || self.sx(me).page_lock || self.siread.contains(&(me, seat, v)) {
            return Ok(());
        }
        self.siread.push((me, seat, v));
        let sx = &mut self.sxs[me as usize];
        sx.tuple_locks += 1;
        if sx.tuple_locks > 2 {
            sx.page_lock = true;
            sx.tuple_locks = 0;
            self.siread.retain(|&(h, _, _)| h != me);
        }
        Ok(())
    }

    /// `me` is about to update version `v` of `seat` (CheckForSerializableConflictIn).
    pub fn write(&mut self, me: SxId, seat: u8, v: VerId) -> Result<(), Failure> {
        self.wrote(me)?;
        let readers: Vec<SxId> = self
            .siread
            .iter()
            .filter(|&&(_, s, ver)| s == seat && ver == v)
            .map(|&(h, _, _)| h)
            .collect();
        for r in readers.into_iter().filter(|&r| r != me) {
            self.conflict_in(r, me)?;
        }
        if let Some(i) = self.siread.iter().position(|&l| l == (me, seat, v)) {
            self.siread.remove(i);
            let sx = &mut self.sxs[me as usize];
            sx.tuple_locks = sx.tuple_locks.saturating_sub(1);
        }
        let pages: Vec<SxId> = (0..self.sxs.len() as SxId)
            .filter(|&s| s != me && self.sx(s).page_lock)
            .collect();
        for r in pages {
            self.conflict_in(r, me)?;
        }
        Ok(())
    }

    /// `me` scans `users`' index for a name (a username's read or lock): a SIREAD lock on its
    /// page, and a rw-conflict out to each concurrent serializable `writer` whose account of
    /// the name it does not see.
    pub fn read_accounts(&mut self, me: SxId, writers: &[SxId]) -> Result<(), Failure> {
        if self.sx(me).is(DOOMED) {
            return Err(Failure);
        }
        for &w in writers.iter().filter(|&&w| w != me) {
            if !self.sx(w).is(DOOMED) && !self.exists(me, w) {
                self.flag(me, w, me)?;
            }
        }
        self.sxs[me as usize].accounts_page = true;
        Ok(())
    }

    /// `me` inserts an account into `users` (CheckForSerializableConflictIn on the index page
    /// where the name goes): a rw-conflict from every other reader of that page.
    pub fn insert_account(&mut self, me: SxId) -> Result<(), Failure> {
        self.wrote(me)?;
        let readers: Vec<SxId> = (0..self.sxs.len() as SxId)
            .filter(|&s| s != me && self.sx(s).accounts_page)
            .collect();
        for r in readers {
            self.conflict_in(r, me)?;
        }
        Ok(())
    }

    /// `me` writes a row that nobody can hold a SIREAD lock on (an insert into booking_seats).
    pub fn wrote(&mut self, me: SxId) -> Result<(), Failure> {
        if self.sx(me).is(DOOMED) {
            return Err(Failure);
        }
        self.sxs[me as usize].did_write = true;
        Ok(())
    }

    fn conflict_in(&mut self, reader: SxId, me: SxId) -> Result<(), Failure> {
        let r = self.sx(reader);
        let overlaps = !r.is(COMMITTED) || self.sx(me).xmin < r.finished_before;
        if !r.released && !r.is(DOOMED) && overlaps && !self.exists(reader, me) {
            self.flag(reader, me, me)?;
        }
        Ok(())
    }

    /// FlagRWConflict: checks for a dangerous structure, then records reader -rw-> writer.
    fn flag(&mut self, reader: SxId, writer: SxId, me: SxId) -> Result<(), Failure> {
        if self.dangerous(reader, writer) {
            if me == writer || self.sx(writer).is(PREPARED) {
                return Err(Failure);
            }
            self.sxs[writer as usize].flags |= DOOMED;
        }
        self.conflicts.push((reader, writer));
        Ok(())
    }

    /// OnConflict_CheckForSerializationFailure, without the summary flags (never set here).
    fn dangerous(&self, reader: SxId, writer: SxId) -> bool {
        let (r, w) = (self.sx(reader), self.sx(writer));
        if w.is(COMMITTED) && w.is(CONFLICT_OUT) {
            return true;
        }
        let pivot_out = self
            .conflicts
            .iter()
            .filter(|c| c.0 == writer)
            .any(|&(_, t2)| {
                let t2 = self.sx(t2);
                t2.is(PREPARED)
                    && (!r.is(COMMITTED) || t2.prepare_seq <= r.commit_seq)
                    && (!w.is(COMMITTED) || t2.prepare_seq <= w.commit_seq)
                    && (!r.is(READ_ONLY) || t2.prepare_seq <= r.last_commit_before_snapshot)
            });
        if pivot_out {
            return true;
        }
        w.is(PREPARED)
            && !r.is(READ_ONLY)
            && self
                .conflicts
                .iter()
                .filter(|c| c.1 == reader)
                .any(|&(t0, _)| {
                    let t0 = self.sx(t0);
                    !t0.is(DOOMED)
                        && (!t0.is(COMMITTED) || t0.commit_seq >= w.prepare_seq)
                        && (!t0.is(READ_ONLY) || t0.last_commit_before_snapshot >= w.prepare_seq)
                })
    }

    /// PreCommit_CheckForSerializationFailure: fails a doomed `me`, dooms the pivots of
    /// dangerous structures that `me` ends, and marks `me` prepared.
    pub fn precommit(&mut self, me: SxId) -> Result<(), Failure> {
        if self.sx(me).is(DOOMED) {
            return Err(Failure);
        }
        let nears: Vec<SxId> = self
            .conflicts
            .iter()
            .filter(|c| c.1 == me)
            .map(|c| c.0)
            .collect();
        for near in nears {
            let n = self.sx(near);
            if n.is(COMMITTED) || n.is(DOOMED) {
                continue;
            }
            let doom = self
                .conflicts
                .iter()
                .filter(|c| c.1 == near)
                .any(|&(far, _)| {
                    let f = self.sx(far);
                    far == me || (!f.is(COMMITTED) && !f.is(READ_ONLY) && !f.is(DOOMED))
                });
            if doom {
                self.sxs[near as usize].flags |= DOOMED;
            }
        }
        self.last_commit_seq += 1;
        let sx = &mut self.sxs[me as usize];
        sx.prepare_seq = self.last_commit_seq;
        sx.flags |= PREPARED;
        Ok(())
    }
}
