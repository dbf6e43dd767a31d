# Sourced by the sbatch templates in this folder: where pcoll is, how srun places and pins the
# ranks, and which PCOLL_ variables travel to the tasks. Override any of these with
# sbatch --export=ALL,NAME=value.
#   PCOLL_BUILD  the build tree (default: build/ in the repository)
#   PCOLL_LIB    where libpcoll_mpi.so and libpcoll.so are (default: $PCOLL_BUILD/collectives;
#                an installed tree: PREFIX/lib)
#   PCOLL_SRUN   the launcher: one task per core, bound to its cores (--cpu-bind=cores), with
#                OMP_NUM_THREADS = --cpus-per-task threads per rank (hybrid MPI+OpenMP)
PCOLL_BUILD="${PCOLL_BUILD:-$(pwd)/build}"
PCOLL_LIB="${PCOLL_LIB:-${PCOLL_BUILD}/collectives}"
export OMP_NUM_THREADS="${SLURM_CPUS_PER_TASK:-1}"
export OMP_PROC_BIND=spread OMP_PLACES=threads
PCOLL_SRUN="${PCOLL_SRUN:-srun --cpu-bind=cores --cpus-per-task=${OMP_NUM_THREADS}}"
# pcoll's view of a node: srun puts consecutive ranks on a node (--distribution=block, the
# default), which is what CHiArA's batches assume; MPI_COMM_TYPE_SHARED then finds the node
# size itself. Set PCOLL_RANKS_PER_NODE only to emulate another node size.
# Every PCOLL_ variable set here (PCOLL_ALLREDUCE=ring, PCOLL_CHIARA_BATCH=8, PCOLL_TRACE=...,
# PCOLL_FALLBACK=silent, ...) reaches every task: srun exports the whole environment by default.
echo "pcoll: build ${PCOLL_BUILD}, libraries ${PCOLL_LIB}, launcher '${PCOLL_SRUN}'," \
     "${SLURM_NNODES:-?} nodes x ${SLURM_NTASKS_PER_NODE:-?} ranks, ${OMP_NUM_THREADS} threads each"
env | grep '^PCOLL_[A-Z_]*=' | grep -v '^PCOLL_\(BUILD\|LIB\|SRUN\)=' | sort || true
