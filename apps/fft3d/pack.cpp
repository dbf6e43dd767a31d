// Pack/unpack of a transpose; see pack.hpp.
#include "pack.hpp"

#include <pcoll/kernels/fft_pack.hpp>

namespace pcoll::fft3d {

namespace {

kernels::Strided3 strided(const BlockCopy &c) {
  return kernels::Strided3{c.field_offset,
                           {c.field_stride[0], c.field_stride[1], c.field_stride[2]}};
}

}  // namespace

void pack_exchange(const Exchange &x, const Layout &src, const std::complex<double> *field,
                   std::complex<double> *send) {
  const auto *from = reinterpret_cast<const kernels::Complex *>(field);
  auto *to = reinterpret_cast<kernels::Complex *>(send);
  for (std::size_t j = 0; j < x.send.size(); ++j) {
    const BlockCopy c = block_copy(x.send[j], src.order, src);
    kernels::fft_pack(from, strided(c), to, kernels::contiguous3(x.sdispl[j], c.extent), c.extent);
  }
}

void unpack_exchange(const Exchange &x, const std::array<int, 3> &sender_order, const Layout &dst,
                     const std::complex<double> *recv, std::complex<double> *field) {
  const auto *from = reinterpret_cast<const kernels::Complex *>(recv);
  auto *to = reinterpret_cast<kernels::Complex *>(field);
  for (std::size_t j = 0; j < x.recv.size(); ++j) {
    const BlockCopy c = block_copy(x.recv[j], sender_order, dst);
    kernels::fft_unpack(from, kernels::contiguous3(x.rdispl[j], c.extent), to, strided(c),
                        c.extent);
  }
}

}  // namespace pcoll::fft3d
