// Open MPI's own MPI_Allreduce (sum of f32) on R ranks: the yardstick of
// scripts/bench-mpi. Prints the median time of `runs` calls on `count`
// floats, measured on rank 0 between barriers.
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
  std::sort(ms.begin(), ms.end());
  if (rank == 0) std::printf("median_ms=%.3f\n", ms[ms.size() / 2]);
  MPI_Finalize();
  return 0;
}
