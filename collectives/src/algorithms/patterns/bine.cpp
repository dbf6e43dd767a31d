#include "bine.hpp"

#include <cstdint>

namespace pcoll::bine {

namespace {

// Negabinary digits of x (two's complement arithmetic on 32 bits, as in Knuth's conversion):
// x = sum_i d_i (-2)^i with d_i the bits of the result.
constexpr std::uint32_t kAlternate = 0xAAAAAAAAu;
std::uint32_t to_negabinary(std::int32_t x) {
  return (static_cast<std::uint32_t>(x) + kAlternate) ^ kAlternate;
}
std::int32_t from_negabinary(std::uint32_t d) {
  return static_cast<std::int32_t>((d ^ kAlternate) - kAlternate);
}
int modulo(long long a, int q) {
  const long long r = a % q;
  return static_cast<int>(r < 0 ? r + q : r);
}

}  // namespace

long long rho(int s) {
  long long v = 0, p = 1;
  for (int i = 0; i <= s; ++i, p *= -2) v += p;
  return v;
}

int peer(int r, int s, int q) {
  const long long d = rho(s);
  return modulo(r % 2 == 0 ? r + d : r - d, q);
}

TreeNode tree_node(int v, int q) {
  TreeNode node;
  const std::uint32_t digits = to_negabinary(v);
  bool reached = v == 0;
  for (int mask = q / 2; mask > 0; mask /= 2) {
    const std::uint32_t low = (static_cast<std::uint32_t>(mask) << 1) - 1;  // the step's digits
    const int partner = modulo(from_negabinary(digits ^ low), q);
    if (reached) {
      node.children.push_back(partner);
    } else if ((digits & low) == 0 || (digits & low) == low) {
      node.parent = partner;
      reached = true;
    }
  }
  return node;
}

int wait_steps(const TreeNode &node, int q) {
  if (node.parent < 0) return 0;
  int levels = 0;
  while ((1 << levels) < q) ++levels;
  return levels - 1 - static_cast<int>(node.children.size());
}

}  // namespace pcoll::bine
