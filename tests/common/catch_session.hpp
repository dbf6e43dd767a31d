// Catch2's session, for the mains of every test program. Catch2 v2 compiles its implementation
// into the one translation unit that defines CATCH_CONFIG_MAIN or CATCH_CONFIG_RUNNER (some 20 s
// of compiler time each); here that is common/catch_session.cpp, built once as the pcoll_catch
// library, and the mains (with MPI, Kokkos, FFTW set up around it) call run_catch.
#pragma once

namespace pcoll_test {

// Catch's command line, then every selected test case; `compact`: the compact reporter (the MPI
// mains' ranks other than 0: rank 0 reports in full, the others only their failures). Catch's
// exit code (non-zero for a bad command line or a failed test).
int run_catch(int argc, char **argv, bool compact = false);

}  // namespace pcoll_test
