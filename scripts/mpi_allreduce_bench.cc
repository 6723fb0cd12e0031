// Open MPI's own MPI_Allreduce (sum of f32) on R ranks: the yardstick of
// scripts/bench-mpi. Prints the median time of `runs` calls on `count`
// floats, measured on rank 0 between barriers, and the time per call of
// `runs` calls back to back.
//   mpicxx -O2 scripts/mpi_allreduce_bench.cc -o allreduce
//   mpirun -n 4 ./allreduce COUNT RUNS
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long count = argc > 1 ? std::atol(argv[1]) : 16 << 20;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<float> in(count, 1.0f + rank), out(count);
  std::vector<double> ms;
  for (int i = 0; i <= runs; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    if (i > 0) ms.push_back((t1 - t0) * 1e3);  // the first call warms up
  }
  // The same calls back to back, as hlo-run's while loop makes them: the
  // time per call of the whole loop.
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < runs; ++i) {
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
  }
  double loop_ms = (MPI_Wtime() - t0) * 1e3 / runs;
  std::sort(ms.begin(), ms.end());
  if (rank == 0) std::printf("median_ms=%.4f loop_ms=%.6f\n", ms[ms.size() / 2], loop_ms);
  MPI_Finalize();
  return 0;
}
