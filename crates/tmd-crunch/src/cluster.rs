//! Work across processes: the message layer a run needs ([`Cluster`], implemented on MPI by
//! the CLI, so that this crate does not link MPI) and the one loop both `tmd crunch` and
//! `tmd search` use under `mpirun`: the root says which work items are already finished, the
//! rest are dealt out cyclically (item k to rank k mod size, as Fortin, Gouicem and Graillat
//! distribute domains over GPUs in "GPU-Accelerated Generation of Correctly Rounded Elementary
//! Functions", ACM TOMS, 2016), every rank sends each finished item's result to the root, and
//! the root hands each result, its own included, to the caller as soon as it arrives (to be
//! journaled at once: a dead rank loses only its item in progress).

use std::sync::mpsc::{channel, TryRecvError};
use std::time::Duration;

/// What a run across processes needs from the message layer. Rank 0 is the root.
pub trait Cluster {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// Called by every rank: returns the root's `bytes` (the others' are ignored).
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8>;
    /// A non-root rank sends one message to the root.
    fn send_to_root(&self, bytes: &[u8]);
    /// The root takes one message from another rank, if one has arrived (does not block).
    fn try_receive(&self) -> Option<Vec<u8>>;
}

/// The root's start-up message: `Some(payload)` for every rank, or `None` when the root
/// cannot start the run (it reports why itself; the others should stop quietly). Every rank
/// calls this; non-roots pass anything.
pub fn share_from_root(cluster: &dyn Cluster, root_says: Option<Vec<u8>>) -> Option<Vec<u8>> {
    let message = match root_says {
        Some(payload) if cluster.rank() == 0 => [vec![1u8], payload].concat(),
        _ => vec![0u8],
    };
    let message = cluster.broadcast(message);
    match message.split_first() {
        Some((1, payload)) => Some(payload.to_vec()),
        _ => None,
    }
}

/// Runs `work` on this rank's share of `items` (every `size`-th, from position `rank`). On the
/// root, `work` runs on a worker thread and `on_result` receives every rank's results as they
/// arrive, in no particular order; elsewhere each result goes to the root. An error from
/// `on_result` stops the root's loop and is returned.
pub fn deal_out<T, E>(
    cluster: &dyn Cluster,
    items: impl Iterator<Item = T> + Send,
    work: impl Fn(&T) -> Vec<u8> + Sync,
    mut on_result: impl FnMut(Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let (rank, size) = (cluster.rank(), cluster.size());
    let mine = items.skip(rank).step_by(size);
    if rank != 0 {
        for item in mine {
            cluster.send_to_root(&work(&item));
        }
        // An empty message says this rank is done (results are never empty).
        cluster.send_to_root(&[]);
        return Ok(());
    }
    let mut others_left = size - 1;
    let (tx, rx) = channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        let work = &work;
        scope.spawn(move || {
            for item in mine {
                if tx.send(work(&item)).is_err() {
                    return;
                }
            }
        });
        let mut own_done = false;
        while !(own_done && others_left == 0) {
            let mut idle = true;
            match rx.try_recv() {
                Ok(bytes) => {
                    idle = false;
                    on_result(bytes)?;
                }
                Err(TryRecvError::Disconnected) => own_done = true,
                Err(TryRecvError::Empty) => {}
            }
            while let Some(bytes) = cluster.try_receive() {
                idle = false;
                if bytes.is_empty() {
                    others_left -= 1;
                } else {
                    on_result(bytes)?;
                }
            }
            if idle {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        Ok(())
    })
}
