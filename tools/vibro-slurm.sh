#!/bin/sh
# vibro-slurm.sh - a Slurm job script for a vibro study.
#
#   sbatch tools/vibro-slurm.sh STUDY.cfg OUT.h5
#
# Edit the #SBATCH lines for your cluster.  vibro must be built with
# `./configure --with-mpi` (tools/setup.sh --with-mpi) against the MPI that
# srun/mpirun use on the cluster (module load openmpi, or Debian's).  Each
# MPI task runs scenes index % ntasks == rank on --cpus-per-task OpenMP
# threads, writes its shards into OUT.h5.part/, and rank 0 merges them into
# OUT.h5 (doc/format.md).  The job always passes --resume: a requeued,
# timed-out or resubmitted job keeps the scenes already complete (verified
# by their checksums, whatever the number of tasks now) and computes the
# rest.  The log gets rank 0's progress line about every 10 s and the
# summary.  A task that dies ends the others (--kill-on-bad-exit); the
# time limit or scancel sends SIGTERM to every task, which writes the
# scenes in flight and exits 143.  Check a study first on a login node:
# vibro check STUDY.cfg.
#
#SBATCH --job-name=vibro-study
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=32
#SBATCH --time=04:00:00
#SBATCH --requeue
#SBATCH --output=vibro-%j.log
set -u
study=${1:?usage: sbatch vibro-slurm.sh STUDY.cfg OUT.h5}
out=${2:?usage: sbatch vibro-slurm.sh STUDY.cfg OUT.h5}
vibro=${VIBRO:-vibro}
threads=${SLURM_CPUS_PER_TASK:-1}
export OMP_NUM_THREADS="$threads" OMP_PROC_BIND=spread OMP_PLACES=cores
# The output directory must be on a file system every node sees.
if command -v srun >/dev/null 2>&1 && [ -n "${SLURM_JOB_ID:-}" ]; then
  srun --cpus-per-task="$threads" --kill-on-bad-exit=1 "$vibro" run "$study" -o "$out" \
    -j "$threads" --resume
else
  mpirun "$vibro" run "$study" -o "$out" -j "$threads" --resume
fi
status=$?
echo "vibro-slurm: exit $status (0 all scenes done, 2 some scene did not finish, 1 error)"
exit $status
