// The Bine trees (algorithms/patterns/bine.hpp) and the algorithms built on them (bine allreduce,
// broadcast and reduce): the tree is a spanning tree whose edges have Swing's distances, the
// plans are correct at the large P the matrix does not reach (P = 1..64 is in
// plan_matrix_test.cpp, every root and count class), and what Bine is for: on a ring its edges
// are shorter than a binomial tree's.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "algorithms/patterns/bine.hpp"
#include "registry.hpp"
#include "shard.hpp"

using namespace pcoll;

std::string check_rooted(Collective coll, const std::string &algo_name,
                         const std::vector<std::pair<std::string, std::string>> &set, int P,
                         std::size_t count, std::size_t type_size, int ranks_per_node, int root);

namespace {

int ring_distance(int a, int b, int q) {
  const int d = std::abs(a - b);
  return std::min(d, q - d);
}

}  // namespace

TEST_CASE("bine: the tree spans every rank once, with Swing's distances", "[bine]") {
  for (int q = 1; q <= 4096; q *= 2) {
    std::vector<bine::TreeNode> node;
    for (int v = 0; v < q; ++v) node.push_back(bine::tree_node(v, q));
    INFO("q=" << q);
    CHECK(node[0].parent == -1);
    int L = 0;
    while ((1 << L) < q) ++L;
    CHECK(node[0].children.size() == static_cast<std::size_t>(L));
    std::vector<int> depth(static_cast<std::size_t>(q), -1);
    depth[0] = 0;
    // Parents and children agree; the k-th child of a node is reached in the step of its
    // position from the end (the root's first child at distance |rho(L-1)|), and the distance
    // of every edge is |rho(s)| for its step s (mod q).
    std::vector<int> order = {0};
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int v = order[i];
      const auto &ch = node[static_cast<std::size_t>(v)].children;
      for (std::size_t k = 0; k < ch.size(); ++k) {
        const int c = ch[k];
        REQUIRE(c >= 0);
        REQUIRE(c < q);
        CHECK(node[static_cast<std::size_t>(c)].parent == v);
        CHECK(depth[static_cast<std::size_t>(c)] == -1);
        depth[static_cast<std::size_t>(c)] = depth[static_cast<std::size_t>(v)] + 1;
        order.push_back(c);
        const int s = static_cast<int>(ch.size() - 1 - k);
        const long long rho = bine::rho(s);
        CHECK(ring_distance(v, c, q) == ring_distance(0, static_cast<int>(((rho % q) + q) % q), q));
      }
    }
    CHECK(order.size() == static_cast<std::size_t>(q));  // every rank reached, none twice
    for (int d : depth) CHECK(d <= L);
  }
}

TEST_CASE("bine: shorter edges than a binomial tree's on a ring", "[bine]") {
  for (int q = 8; q <= 4096; q *= 2) {
    long long bine_sum = 0, binomial_sum = 0;
    for (int v = 1; v < q; ++v) {
      bine_sum += ring_distance(v, bine::tree_node(v, q).parent, q);
      binomial_sum += ring_distance(v, v & (v - 1), q);  // binomial parent: lowest bit cleared
    }
    INFO("q=" << q << ": ring hops of all edges, bine " << bine_sum << ", binomial "
              << binomial_sum);
    CHECK(bine_sum < binomial_sum);
    CHECK(double(bine_sum) <= 0.75 * double(binomial_sum));
  }
}

TEST_CASE("bine: every plan correct at large P", "[plan][bine]") {
  pcoll_test::Dealer mine;
  for (int P : {256, 1000, 1024, 2304})
    for (const Collective coll : {Collective::allreduce, Collective::bcast, Collective::reduce}) {
      if (!mine()) continue;
      INFO("P=" << P << " " << collective_name(coll));
      // Rooted collectives at a root off rank 0 (the tree is built on virtual ranks).
      const int root = coll == Collective::allreduce ? 0 : P / 3;
      REQUIRE(check_rooted(coll, "bine", {}, P, std::size_t(P) + 1, 8, 0, root) == "");
    }
}
