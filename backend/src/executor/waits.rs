//! Who waits for whom among a run's actors, as the monitor last saw it: the one wait-for graph
//! that the run (its deadlock cycles, the pace watch) and `spacing` walk.

/// Per actor, the actors its statement in flight was last seen blocked by (none: it does not
/// wait, or has nothing in flight).
pub(crate) struct WaitGraph<'a> {
    by: Vec<&'a [usize]>,
}

impl<'a> WaitGraph<'a> {
    /// The graph whose edges from actor `a` are the `a`-th item of `by`.
    pub fn new(by: impl IntoIterator<Item = &'a [usize]>) -> WaitGraph<'a> {
        WaitGraph {
            by: by.into_iter().collect(),
        }
    }

    /// The actors that `from` waits for, transitively (`from` itself only through a cycle).
    pub fn reach(&self, from: usize) -> Vec<bool> {
        let mut seen = vec![false; self.by.len()];
        let mut stack = vec![from];
        while let Some(a) = stack.pop() {
            for &b in self.by[a] {
                if !std::mem::replace(&mut seen[b], true) {
                    stack.push(b);
                }
            }
        }
        seen
    }

    /// Whether `from` waits for `to`, transitively.
    pub fn reaches(&self, from: usize, to: usize) -> bool {
        self.reach(from)[to]
    }

    /// Whether `a` and `b` are on one cycle: each waits for the other, transitively.
    pub fn on_cycle(&self, a: usize, b: usize) -> bool {
        self.reaches(a, b) && self.reaches(b, a)
    }

    /// Whether a cycle can be reached from one of `from` (a deadlock not yet broken).
    pub fn has_cycle(&self, from: &[usize]) -> bool {
        // 0: unvisited, 1: on the current path, 2: done.
        fn visit(a: usize, by: &[&[usize]], mark: &mut [u8]) -> bool {
            match mark[a] {
                1 => return true,
                2 => return false,
                _ => {}
            }
            mark[a] = 1;
            let found = by[a].iter().any(|&b| visit(b, by, mark));
            mark[a] = 2;
            found
        }
        let mut mark = vec![0u8; self.by.len()];
        from.iter().any(|&a| visit(a, &self.by, &mut mark))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_follows_the_waits_transitively_and_finds_cycles() {
        // 0 waits for 1, 1 for 2, 2 for 1; 3 waits for nobody.
        let by: [&[usize]; 4] = [&[1], &[2], &[1], &[]];
        let g = WaitGraph::new(by);
        assert_eq!(g.reach(0), [false, true, true, false]);
        assert!(g.reaches(0, 2) && !g.reaches(2, 0));
        assert!(g.on_cycle(1, 2) && !g.on_cycle(0, 1));
        assert!(g.reaches(1, 1) && !g.reaches(0, 0));
        assert!(g.has_cycle(&[0]) && !g.has_cycle(&[3]));
    }
}
