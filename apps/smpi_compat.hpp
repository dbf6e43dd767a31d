// SimGrid's smpicxx force-includes <smpi/smpi_helpers.h> into every translation unit, and that
// header defines exit(x) as a function-like macro (so that one simulated rank's exit does not end
// the whole simulation). CLI11 declares a member App::exit, and std::exit(x) would expand to the
// invalid name std::smpi_exit. Files that use either include this header first: in an SMPI build
// exit is then the C library's, which ends the whole simulation (what a usage error must do);
// in a native build it changes nothing.
#pragma once

#ifdef exit
#undef exit
#endif
