/* The test programs' check: counts a failure and says what went wrong, without stopping (the
 * program reports the total at the end). Each program defines `static int failures`. */
#pragma once
#include <stdio.h>

#define EXPECT(c, ...)              \
  do {                              \
    if (!(c)) {                     \
      ++failures;                   \
      fprintf(stderr, __VA_ARGS__); \
      fprintf(stderr, "\n");        \
    }                               \
  } while (0)
