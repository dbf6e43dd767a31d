# Warnings on and clean (DESIGN.md conventions).
include_guard(GLOBAL)
function(pcoll_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow>)
endfunction()
