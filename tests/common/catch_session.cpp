// Catch2's implementation, compiled once for every test program (see catch_session.hpp).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_session.hpp"

namespace pcoll_test {

int run_catch(int argc, char **argv, bool compact) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  if (compact) session.configData().reporterName = "compact";
  return session.run();
}

}  // namespace pcoll_test
