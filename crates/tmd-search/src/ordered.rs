//! Parallel jobs, results consumed in job order: the skeleton every search shares.
//!
//! Jobs run on rayon's pool in any order; their results travel through a channel to the
//! calling thread, which hands result `j` to the consumer only after results `0..j`. So the
//! consumer sees a growing finished *prefix*: what it writes (cases, checkpoints) is always the
//! complete output of the first `j` jobs, whatever happens to the later ones.

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::mpsc;

/// Runs `work(0..jobs)` in parallel and calls `consume(j, result)` in increasing j.
pub(crate) fn run_ordered<T, W, C>(jobs: u64, work: W, mut consume: C)
where
    T: Send,
    W: Fn(u64) -> T + Sync + Send,
    C: FnMut(u64, T),
{
    let (tx, rx) = mpsc::channel::<(u64, T)>();
    std::thread::scope(|scope| {
        let work = &work;
        scope.spawn(move || {
            (0..jobs).into_par_iter().for_each_with(tx, |tx, j| {
                // The receiver lives until every job is in; a send can only fail if the
                // calling thread panicked, and then there is nobody left to report to.
                let _ = tx.send((j, work(j)));
            });
        });
        let mut pending = BTreeMap::new();
        let mut next = 0u64;
        for (j, result) in rx {
            pending.insert(j, result);
            while let Some(result) = pending.remove(&next) {
                consume(next, result);
                next += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_arrive_in_job_order() {
        let mut seen = Vec::new();
        run_ordered(
            500,
            |j| {
                // Uneven work so that jobs finish out of order.
                let spin = (j * 7919) % 97;
                (0..spin * 100).fold(j, |a, b| a ^ b) ^ (0..spin * 100).fold(0, |a, b| a ^ b)
            },
            |j, r| {
                assert_eq!(j, r);
                seen.push(j);
            },
        );
        assert_eq!(seen, (0..500).collect::<Vec<_>>());
    }
}
