// The radix-k group of the k-nomial recursive exchange (MPICH's recexch family), shared by the
// two allreduce schedules built on it: recexch (whole vectors, latency-optimal) and recexch_rsag
// (reduce-scatter and allgather, bandwidth-optimal).
//
// With q = k^m the largest power of the radix k not above P (k capped at P): in step s
// (d = k^s) rank r < q exchanges with the k - 1 ranks base + j d, j = 0..k-1, j != r's digit s
// (base: r with digit s cleared). The ranks r >= q are folded: each sends its vector to r mod q
// before the exchange and gets the result back from it after (at most k - 1 per rank below q,
// since P < k q). Folded ranks join out of rank order: commutative operations only.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../plan.hpp"

namespace pcoll {

struct PlanRequest;

struct RadixShape {
  int k = 2;  // the radix used
  int q = 1;  // k^m <= P
  int m = 0;  // exchange steps
};

RadixShape radix_shape(int P, long long radix);
RadixShape radix_shape(const PlanRequest &req);  // from recexch_radix

// The radix parameter both schedules read (declared once, listed by each).
ParamSpec recexch_radix_param();

// The radices `auto`'s cost model tries besides the configured one (4, 8, 16 up to P), for
// both schedules' AlgorithmInfo::tunings.
std::vector<std::vector<std::pair<std::string, std::string>>> radix_tunings(
    const PlanRequest &req);

// Vectors rank r < q receives in the fold (its extras r + q, r + 2q, ... below P).
int radix_extras(const RadixShape &s, int P, int r);
// The most any rank receives: ceil((P - q) / q).
int radix_max_extras(const RadixShape &s, int P);

// The fold step, on every rank when q < P (an empty round, kept as the step, where a rank takes
// no part): rank r >= q sends `work` to r mod q; rank r < q receives each extra's vector into
// slot(i) (i = 0, 1, ... in rank order) and reduces it into `work`, in rank order.
template <class Slot>
void radix_fold(Plan &plan, const RadixShape &s, int P, int me, Range work, Slot slot,
                int phase) {
  if (s.q >= P) return;
  Round &r = plan.new_round(phase);
  if (me >= s.q) {
    add_send(r, me % s.q, work);
    return;
  }
  int i = 0;
  for (int x = me + s.q; x < P; x += s.q, ++i) {
    const Range into = slot(i);
    const int rv = add_recv(r, x, into);
    add_reduce(r, into, work, false, rv);
  }
}

// The unfold step: rank r < q sends the result to its extras, rank r >= q receives it.
void radix_unfold(Plan &plan, const RadixShape &s, int P, int me, Range work, int phase);

}  // namespace pcoll
