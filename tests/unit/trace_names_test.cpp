// The trace's `collective` column fits every name a record can carry: each collective blocking,
// nonblocking ("i" + name) and persistent (name + "_init"), and the calls libpcoll_mpi.so passes
// to the vendor and traces, whose longest is "ineighbor_allgatherv".
#include <catch2/catch.hpp>

#include <string>

#include "registry.hpp"
#include "trace/writer.hpp"

TEST_CASE("the trace's collective column fits every name it records") {
  for (pcoll::Collective c : pcoll::all_collectives()) {
    const std::string name = pcoll::collective_name(c);
    for (const std::string &form : {name, "i" + name, name + "_init"}) {
      INFO(form);
      CHECK(form.size() + 1 <= pcoll::trace::kCollectiveField);
    }
  }
  for (const std::string form : {"ineighbor_allgatherv", "neighbor_allgatherv_init",
                                 "ineighbor_alltoallw", "neighbor_alltoallw_init"}) {
    INFO(form);
    CHECK(form.size() + 1 <= pcoll::trace::kCollectiveField);
  }
}

TEST_CASE("the trace's params column fits every algorithm's parameters", "[trace]") {
  for (const pcoll::AlgorithmInfo *a : pcoll::all_algorithms()) {
    std::string text;
    for (const pcoll::ParamSpec &p : a->params)
      text += (text.empty() ? "" : ",") + std::string(p.name) + "=" + std::string(13, '9');
    INFO(a->name << ": " << text);
    CHECK(text.size() + 1 <= pcoll::trace::kParamsField);
  }
}
