// The pack and unpack of one global transpose (an Exchange of layout.hpp) with the Kokkos
// kernels of kernels/fft_pack.hpp. No MPI: tests run whole transposes in memory for every P.
#pragma once

#include <array>
#include <complex>

#include "layout.hpp"

namespace pcoll::fft3d {

// Copies every send block of x out of `field` (laid out as src) into `send`, peer j's block at
// x.sdispl[j], in src's memory order.
void pack_exchange(const Exchange &x, const Layout &src, const std::complex<double> *field,
                   std::complex<double> *send);

// Copies every receive block of x (peer j's at x.rdispl[j], in the sender's memory order
// `sender_order`) into `field`, laid out as dst.
void unpack_exchange(const Exchange &x, const std::array<int, 3> &sender_order, const Layout &dst,
                     const std::complex<double> *recv, std::complex<double> *field);

}  // namespace pcoll::fft3d
