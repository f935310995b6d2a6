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
//! holds is the caller's to bound: [`run_ordered_in_parts`] lets a job return in parts, each
//! holding a bounded number of items.

use std::collections::{BTreeMap, VecDeque};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};
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
    run_ordered_in_parts(jobs, |j, _: Option<()>| (work(j), None), held, consume);
}

/// One task of [`run_ordered_in_parts`]: part `part` of job `job`, with the rest of the job
/// to go on from (`None` for part 0).
struct Task<K> {
    job: u64,
    part: u64,
    rest: Option<K>,
}

/// [`run_ordered`] where a job may stop before its end, so that no result has to hold more
/// than a bounded number of items (a chunk where nearly every input is hard): `work(j, rest)`
/// returns a result and, if the job is not done, what is left of it, which is run later as
/// the job's next part (`rest` then holds it). `consume` gets the parts of job j in order,
/// before job j + 1. A next part starts under the same rules as a new job, but before any
/// new job, and always when its job is the next to be consumed.
pub(crate) fn run_ordered_in_parts<T, K, W, H, C>(jobs: u64, work: W, held: H, consume: C)
where
    T: Send,
    K: Send,
    W: Fn(u64, Option<K>) -> (T, Option<K>) + Sync,
    H: Fn(&T) -> u64 + Sync,
    C: FnMut(u64, T) -> ControlFlow<()> + Send,
{
    let (tx, rx) = mpsc::channel::<(u64, u64, T, bool)>();
    let consumed = AtomicU64::new(0);
    let held_now = AtomicU64::new(0);
    let (started, finished) = (AtomicU64::new(0), AtomicU64::new(0));
    // Next parts waiting to start, oldest job first.
    let rests: Mutex<VecDeque<Task<K>>> = Mutex::new(VecDeque::new());
    let window = window();
    let threads = rayon::current_num_threads() as u64;
    std::thread::scope(|scope| {
        let (consumed, held_now, held) = (&consumed, &held_now, &held);
        let (started, finished, rests) = (&started, &finished, &rests);
        let consumer = scope.spawn(move || {
            let mut consume = consume;
            let mut pending = BTreeMap::new();
            let mut next = (0u64, 0u64);
            for (j, part, result, more) in rx {
                pending.insert((j, part), (result, more));
                while let Some((result, more)) = pending.remove(&next) {
                    held_now.fetch_sub(held(&result), Ordering::AcqRel);
                    if consume(next.0, result).is_break() {
                        return;
                    }
                    next = if more {
                        (next.0, next.1 + 1)
                    } else {
                        (next.0 + 1, 0)
                    };
                    consumed.store(next.0, Ordering::Release);
                }
            }
        });
        let work = &work;
        rayon::scope_fifo(|s| {
            // Started tasks not yet finished: about one per thread, so that the held budget
            // is seen before more start. The job next to be consumed always may start: a
            // task never waits, so it cannot block the one the consumer needs.
            let room = |job: u64| {
                let next = consumed.load(Ordering::Acquire);
                let in_flight = started.load(Ordering::Acquire) - finished.load(Ordering::Acquire);
                job == next
                    || (job < next + window
                        && in_flight < threads + 1
                        && held_now.load(Ordering::Acquire) < HELD_BUDGET)
            };
            let mut j = 0u64;
            loop {
                // A consumer that is done (or panicked) consumes no more: start nothing more;
                // a panic is raised below.
                if consumer.is_finished() {
                    return;
                }
                let task = {
                    let mut rests = rests.lock().expect("poisoned");
                    match rests.front() {
                        Some(t) if room(t.job) => rests.pop_front(),
                        _ if j < jobs && room(j) => {
                            j += 1;
                            Some(Task {
                                job: j - 1,
                                part: 0,
                                rest: None,
                            })
                        }
                        _ => None,
                    }
                };
                let Some(task) = task else {
                    // Finished counts first: a task queues its next part before it counts
                    // as finished, so none is missed.
                    let idle = started.load(Ordering::Acquire) == finished.load(Ordering::Acquire);
                    if j >= jobs && idle && rests.lock().expect("poisoned").is_empty() {
                        return;
                    }
                    // Run queued tasks meanwhile, or wait a little.
                    if rayon::yield_now() != Some(rayon::Yield::Executed) {
                        std::thread::sleep(Duration::from_micros(50));
                    }
                    continue;
                };
                started.fetch_add(1, Ordering::AcqRel);
                let tx = tx.clone();
                // The receiver lives until every sender is gone; a send can only fail if
                // the consumer panicked, and then its panic is raised below.
                s.spawn_fifo(move |_| {
                    let (result, rest) = work(task.job, task.rest);
                    let more = rest.is_some();
                    if let Some(rest) = rest {
                        let next = Task {
                            job: task.job,
                            part: task.part + 1,
                            rest: Some(rest),
                        };
                        let mut rests = rests.lock().expect("poisoned");
                        // Oldest job first: parts of one job come one at a time.
                        let at = rests.partition_point(|t| t.job < next.job);
                        rests.insert(at, next);
                    }
                    held_now.fetch_add(held(&result), Ordering::AcqRel);
                    let _ = tx.send((task.job, task.part, result, more));
                    finished.fetch_add(1, Ordering::AcqRel);
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

    #[test]
    fn parts_of_a_job_arrive_in_order_before_the_next_job() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let mut seen = Vec::new();
        pool.install(|| {
            run_ordered_in_parts(
                60,
                |j, rest: Option<u64>| {
                    // Job j comes in j % 5 + 1 parts; uneven work so that parts finish late.
                    let part = rest.unwrap_or(0);
                    let spin = (j * 7919 + part * 31) % 97;
                    let noise = (0..spin * 200).fold(0u64, |a, b| a ^ b);
                    let more = part + 1 < j % 5 + 1;
                    ((j, part, noise), more.then_some(part + 1))
                },
                |_| 1,
                |j, (job, part, _)| {
                    assert_eq!(j, job);
                    seen.push((job, part));
                    ControlFlow::Continue(())
                },
            )
        });
        let expected: Vec<(u64, u64)> = (0..60)
            .flat_map(|j| (0..j % 5 + 1).map(move |p| (j, p)))
            .collect();
        assert_eq!(seen, expected);
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
