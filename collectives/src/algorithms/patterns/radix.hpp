// The radix-k group of the k-nomial recursive exchange (MPICH's recexch family), shared by the
// two allreduce schedules built on it: recexch (whole vectors, latency-optimal) and recexch_rsag
// (reduce-scatter and allgather, bandwidth-optimal).
//
// The group is q <= P ranks numbered in mixed radix k_0, k_1, ..., k_{m-1} (q = their product,
// every k_s <= k, the radix parameter capped at P): in step s (stride d_s = k_0 ... k_{s-1})
// rank r < q exchanges with the k_s - 1 ranks base + j d_s, j = 0..k_s-1, j != r's digit s
// (digit s = r / d_s mod k_s, base: r with digit s cleared). The ranks r >= q are folded: each
// sends its vector to r mod q before the exchange and gets the result back from it after.
// Folded ranks join out of rank order: commutative operations only.
//
// recexch_factors says how q and the radices are chosen:
//   power: MPICH's group, q = k^m the largest power of k not above P, every radix k; up to
//          k - 1 folded vectors per rank (P < k q). Where P is not a power of k, a third to
//          nearly all of the ranks are folded: at P = 512 and k = 16, half of them.
//   mixed: q the largest number not above P whose prime factors are all <= k (so q > P/2: at
//          most one folded vector per rank, none where P is such a number, e.g. any power of 2
//          or 1000 = 10 x 10 x 10), written as the product of the fewest radices <= k, as equal
//          as they can be (fewer peers, and fewer whole vectors in recexch), largest first (the
//          first step stays among neighbouring ranks). Where P = k^m both are the same group.
// The mixed radix generalises MPICH's k-nomial group the way mixed-radix FFTs generalise
// radix-k ones; MPICH folds instead.
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
  int k = 2;               // the largest radix allowed (recexch_radix capped at P)
  int q = 1;               // ranks in the exchange: the product of the radices, <= P
  int m = 0;               // exchange steps
  std::vector<int> radix;  // radix of step s (k_s)
  std::vector<int> stride; // stride of step s (d_s = k_0 ... k_{s-1})
  int peers() const;       // sum of k_s - 1: the messages a rank sends in one pass
  std::string describe() const;  // "8 x 8 x 8"
};

enum class RadixFactors { mixed = 0, power = 1 };  // recexch_factors' choices, in order

RadixShape radix_shape(int P, long long radix, RadixFactors f = RadixFactors::mixed);
RadixShape radix_shape(const PlanRequest &req);  // from recexch_radix and recexch_factors

// The parameters both schedules read (declared once, listed by each).
std::vector<ParamSpec> recexch_params();

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
