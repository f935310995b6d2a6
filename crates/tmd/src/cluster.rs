//! MPI for `mpirun -np P tmd crunch ...` (cargo feature `mpi`): the message layer behind
//! tmd-crunch's [`Cluster`] trait, on rsmpi. MPI is started only when the process was launched
//! by an MPI launcher (OpenMPI's or a PMI environment, as under Slurm's srun), so the same
//! binary runs alone as before.

use mpi::environment::Universe;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tmd_crunch::cluster::Cluster;

/// The world communicator of an MPI run.
pub struct MpiCluster {
    _universe: Universe,
    world: SimpleCommunicator,
}

/// Whether an MPI launcher started this process.
fn launched_by_mpi() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

impl MpiCluster {
    /// Starts MPI when launched by mpirun/srun; `None` otherwise.
    pub fn from_env() -> Option<MpiCluster> {
        if !launched_by_mpi() {
            return None;
        }
        // Only the main thread talks to MPI (the root's own blocks run on a worker thread).
        let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)?;
        let world = universe.world();
        Some(MpiCluster {
            _universe: universe,
            world,
        })
    }

    /// Stops every rank after a failure at start-up: the root prints `err` (one line, as
    /// `main` would) before any rank exits, since mpirun ends the job at the first non-zero
    /// exit; the exit code is 2 for bad input, 1 otherwise.
    pub fn fail_together(&self, err: Option<anyhow::Error>) -> ! {
        let bad_input = err
            .as_ref()
            .is_some_and(|e| e.downcast_ref::<tmd_core::InputError>().is_some());
        if let Some(e) = &err {
            eprintln!("tmd: {e:#}");
        }
        self.world.barrier();
        std::process::exit(if bad_input || err.is_none() { 2 } else { 1 });
    }

    /// Stops every rank when some are ready to run and others are not (a rank whose own
    /// device is missing, say), since the ready ones would wait for the others: each unready
    /// rank prints `not_ready`, naming itself, and every rank exits with 2 (the request cannot
    /// run as given on these ranks). When all ranks or none are ready it returns: none ready
    /// means each met the same refusal, which the caller reports as a single process would.
    pub fn stop_if_only_some_ready(&self, not_ready: Option<&str>) {
        let ready = i32::from(not_ready.is_none());
        let mut ready_ranks = 0i32;
        self.world.all_reduce_into(
            &ready,
            &mut ready_ranks,
            mpi::collective::SystemOperation::sum(),
        );
        if ready_ranks == 0 || ready_ranks == self.world.size() {
            return;
        }
        if let Some(why) = not_ready {
            eprintln!("tmd: rank {}: {why}", self.world.rank());
        }
        self.world.barrier();
        std::process::exit(2);
    }

    /// Stops the whole job from one rank after a failure during the run (other ranks may be
    /// busy, so no collective call): prints `err`, then MPI_Abort.
    pub fn abort(&self, err: anyhow::Error) -> ! {
        eprintln!("tmd: {err:#}");
        self.world.abort(1)
    }

    /// This rank's number among the ranks of its node (OpenMPI's, or Slurm's local id).
    pub fn local_rank(&self) -> usize {
        [
            "OMPI_COMM_WORLD_LOCAL_RANK",
            "SLURM_LOCALID",
            "MPI_LOCALRANKID",
        ]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
        .unwrap_or(0)
    }

    /// Worker threads for this rank: the cores divided among the ranks of this node.
    pub fn threads_per_rank(&self) -> usize {
        let local: usize = std::env::var("OMPI_COMM_WORLD_LOCAL_SIZE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cores / local.max(1)).max(1)
    }
}

impl Cluster for MpiCluster {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        let mut buf = if self.world.rank() == 0 {
            bytes
        } else {
            vec![0u8; len as usize]
        };
        if len > 0 {
            root.broadcast_into(&mut buf[..]);
        }
        buf
    }

    fn send_to_root(&self, bytes: &[u8]) {
        self.world.process_at_rank(0).send(bytes);
    }

    fn try_receive(&self) -> Option<Vec<u8>> {
        let probed = self.world.any_process().immediate_matched_probe()?;
        let (bytes, _) = probed.matched_receive_vec::<u8>();
        Some(bytes)
    }
}
