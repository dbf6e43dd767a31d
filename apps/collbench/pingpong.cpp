#include "pingpong.hpp"

namespace collbench {

PingPong measure_pingpong(MPI_Comm comm) {
  PingPong pp;
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  if (P < 2) return pp;
  const std::size_t sizes[] = {0, 8, 64, 512, 4096, 32768, 262144, 1048576};
  std::vector<char> buf(sizes[7]);
  for (std::size_t bytes : sizes) {
    const int batch = bytes <= 4096 ? 100 : bytes <= 262144 ? 20 : 5;
    const int samples = 41, warm = 5;
    std::vector<double> one_way;
    const int n = static_cast<int>(bytes);
    for (int s = -warm; s < samples; ++s) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      for (int k = 0; k < batch; ++k) {
        if (rank == 0) {
          MPI_Send(buf.data(), n, MPI_BYTE, 1, 7, comm);
          MPI_Recv(buf.data(), n, MPI_BYTE, 1, 7, comm, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(buf.data(), n, MPI_BYTE, 0, 7, comm, MPI_STATUS_IGNORE);
          MPI_Send(buf.data(), n, MPI_BYTE, 0, 7, comm);
        }
      }
      if (s >= 0) one_way.push_back((MPI_Wtime() - t0) / (2.0 * batch));
    }
    pp.rows.push_back({bytes, describe(one_way)});
  }
  // Rank 0's numbers are the measurement; every rank uses them.
  std::vector<double> med;
  for (const auto &r : pp.rows) med.push_back(r.one_way.median);
  MPI_Bcast(med.data(), static_cast<int>(med.size()), MPI_DOUBLE, 0, comm);
  for (std::size_t i = 0; i < med.size(); ++i) pp.rows[i].one_way.median = med[i];
  pp.alpha = med[0];
  // Least squares over the three largest sizes.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const std::size_t n = pp.rows.size();
  for (std::size_t i = n - 3; i < n; ++i) {
    const double x = double(pp.rows[i].bytes), y = med[i];
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  pp.beta = (3 * sxy - sx * sy) / (3 * sxx - sx * sx);
  if (pp.beta < 0) pp.beta = 0;
  pp.valid = true;
  return pp;
}

}  // namespace collbench
