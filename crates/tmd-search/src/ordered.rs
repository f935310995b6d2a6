//! Parallel jobs, results consumed in job order: the skeleton every search shares.
//!
//! Jobs run on the calling thread's rayon pool in any order; their results travel through a
//! channel to a consumer thread, which hands result `j` to the consumer only after results
//! `0..j`. So the consumer sees a growing finished *prefix*: what it writes (cases,
//! checkpoints) is always the complete output of the first `j` jobs, whatever happens to the
//! later ones.
//!
//! The jobs are started from the calling thread, so they run on the pool it belongs to: the
//! CLI's `--threads` pool, entered with `ThreadPool::install` (a job started from a thread of
//! our own would run on rayon's global pool instead, sized to every core, and the global pool
//! would start its threads in the middle of the search). The consumer has a thread of its own
//! and takes no worker: listing goes on while jobs run, on a pool of one thread too.
//!
//! Memory stays bounded whatever the number of jobs: a job is started only while fewer than
//! [`window`] started jobs wait to be consumed, about one per thread is running, and the
//! finished ones hold fewer than [`HELD_BUDGET`] items (cases) between them, so finished
//! results never pile up behind a slow one (the next job to be consumed is always started);
//! the jobs are spawned FIFO, so the oldest waiting job is the next one to run. What one job
//! holds is the caller's to bound.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How many jobs may be started and not yet consumed: a few per thread of the pool, enough
/// to keep every thread busy while the consumer writes.
fn window() -> u64 {
    (4 * rayon::current_num_threads() as u64).max(8)
}

/// Items (cases) finished jobs may hold while they wait to be consumed before no further job
/// is started: 2^20 cases, about 112 MiB.
pub(crate) const HELD_BUDGET: u64 = 1 << 20;

/// Runs `work(0..jobs)` in parallel on the current pool and calls `consume(j, result)` in
/// increasing j on another thread; `held(result)` is how many items a result holds. When
/// `consume` breaks (its output is gone: a closed pipe, a full disk), no further job starts
/// and no further result is consumed; the jobs already running finish and are dropped.
pub(crate) fn run_ordered<T, W, H, C>(jobs: u64, work: W, held: H, consume: C)
where
    T: Send,
    W: Fn(u64) -> T + Sync,
    H: Fn(&T) -> u64 + Sync,
    C: FnMut(u64, T) -> ControlFlow<()> + Send,
{
    let (tx, rx) = mpsc::channel::<(u64, T)>();
    let consumed = AtomicU64::new(0);
    let held_now = AtomicU64::new(0);
    let finished = AtomicU64::new(0);
    let window = window();
    let threads = rayon::current_num_threads() as u64;
    std::thread::scope(|scope| {
        let (consumed, held_now, held, finished) = (&consumed, &held_now, &held, &finished);
        let consumer = scope.spawn(move || {
            let mut consume = consume;
            let mut pending = BTreeMap::new();
            let mut next = 0u64;
            for (j, result) in rx {
                pending.insert(j, result);
                while let Some(result) = pending.remove(&next) {
                    held_now.fetch_sub(held(&result), Ordering::AcqRel);
                    if consume(next, result).is_break() {
                        return;
                    }
                    next += 1;
                    consumed.store(next, Ordering::Release);
                }
            }
        });
        let work = &work;
        rayon::scope_fifo(|s| {
            for j in 0..jobs {
                if consumer.is_finished() {
                    return;
                }
                // Wait for room, running queued jobs meanwhile (a job never waits, so running
                // one here cannot block the one the consumer needs). A consumer that panicked
                // consumes no more: stop starting jobs, its panic is raised below.
                // Started jobs not yet finished: about one per thread, so that the held budget
                // is seen before more start.
                let room = |j: u64| {
                    let next = consumed.load(Ordering::Acquire);
                    j == next
                        || (j < next + window
                            && j < finished.load(Ordering::Acquire) + threads + 1
                            && held_now.load(Ordering::Acquire) < HELD_BUDGET)
                };
                while !room(j) {
                    if consumer.is_finished() {
                        return;
                    }
                    if rayon::yield_now() != Some(rayon::Yield::Executed) {
                        std::thread::sleep(Duration::from_micros(50));
                    }
                }
                let tx = tx.clone();
                // The receiver lives until every sender is gone; a send can only fail if
                // the consumer panicked, and then its panic is raised below.
                s.spawn_fifo(move |_| {
                    let result = work(j);
                    held_now.fetch_add(held(&result), Ordering::AcqRel);
                    finished.fetch_add(1, Ordering::AcqRel);
                    let _ = tx.send((j, result));
                });
            }
        });
        drop(tx);
        if let Err(panic) = consumer.join() {
            std::panic::resume_unwind(panic);
        }
    });
}

/// `Continue` while `go_on` holds, for consumers of [`run_ordered`].
pub(crate) fn continue_if(go_on: bool) -> ControlFlow<()> {
    if go_on {
        ControlFlow::Continue(())
    } else {
        ControlFlow::Break(())
    }
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
            |_| 1,
            |j, r| {
                assert_eq!(j, r);
                seen.push(j);
                ControlFlow::Continue(())
            },
        );
        assert_eq!(seen, (0..500).collect::<Vec<_>>());
    }

    /// The jobs once ran on rayon's global pool (sized to every core, started in the
    /// middle of the search) whatever pool the caller had entered, so `tmd search --threads 1`
    /// used every core. They must run on the caller's pool, and the consumer must not need a
    /// worker of it: with one thread, job 1 waits until job 0 has been consumed.
    #[test]
    fn jobs_run_on_the_callers_pool_and_listing_needs_no_worker() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::time::{Duration, Instant};
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|i| format!("ordered-test-{i}"))
            .build()
            .unwrap();
        let consumed_first = AtomicBool::new(false);
        let mut seen = Vec::new();
        pool.install(|| {
            run_ordered(
                4,
                |j| {
                    if j == 1 {
                        let waited = Instant::now();
                        while !consumed_first.load(Ordering::SeqCst)
                            && waited.elapsed() < Duration::from_secs(20)
                        {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    }
                    let name = std::thread::current().name().map(str::to_string);
                    (name, consumed_first.load(Ordering::SeqCst) || j == 0)
                },
                |_| 0,
                |j, (name, after_first)| {
                    consumed_first.store(true, Ordering::SeqCst);
                    seen.push((j, name, after_first));
                    ControlFlow::Continue(())
                },
            )
        });
        for (j, name, after_first) in &seen {
            assert_eq!(
                name.as_deref(),
                Some("ordered-test-0"),
                "job {j} ran elsewhere"
            );
            assert!(after_first, "job {j} ran before job 0 was listed");
        }
        assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
    }

    /// A consumer whose output is gone stops the run: no job starts after it breaks, beyond
    /// those already started.
    #[test]
    fn a_consumer_that_breaks_stops_the_jobs() {
        let started = AtomicU64::new(0);
        let mut consumed = Vec::new();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            run_ordered(
                1_000_000,
                |j| {
                    started.fetch_add(1, Ordering::SeqCst);
                    j
                },
                |_| 1,
                |j, _| {
                    consumed.push(j);
                    if j == 10 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            )
        });
        assert_eq!(consumed, (0..=10).collect::<Vec<_>>());
        let started = started.load(Ordering::SeqCst);
        assert!(started < 10_000, "{started} jobs started");
    }

    /// Results that hold many items stop new jobs from starting while the first job runs:
    /// memory is bounded by what is held, not by how many jobs there are.
    #[test]
    fn held_items_bound_the_jobs_started_ahead_of_a_slow_one() {
        use std::sync::atomic::AtomicBool;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let first_done = AtomicBool::new(false);
        let started_ahead = AtomicU64::new(0);
        pool.install(|| {
            run_ordered(
                100,
                |j| {
                    if j == 0 {
                        std::thread::sleep(Duration::from_millis(300));
                        first_done.store(true, Ordering::SeqCst);
                    } else if !first_done.load(Ordering::SeqCst) {
                        started_ahead.fetch_add(1, Ordering::SeqCst);
                    }
                    j
                },
                |_| HELD_BUDGET / 2,
                |_, _| ControlFlow::Continue(()),
            )
        });
        // Two finished results reach the budget; the jobs running then (one per thread, and
        // one more) may finish too.
        let ahead = started_ahead.load(Ordering::SeqCst);
        assert!(ahead <= 4, "{ahead} jobs started while the first one ran");
    }
}
